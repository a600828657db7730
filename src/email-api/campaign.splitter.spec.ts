import { CampaignSplitter, campaignBody } from './campaign.splitter';
import type { CampaignRecipient } from './vendor.types';

describe(CampaignSplitter.name, () => {
  const content = { subject: 'Hi {{NAME}}', body: 'x'.repeat(200) };
  const to: CampaignRecipient[] = Array.from({ length: 50 }, (_, i) => ({
    email: `r${i}@example.com`,
    attributes: { NAME: 'n'.repeat(i % 7) },
  }));
  const all = [...to.keys()];

  it('packs by count', () => {
    const split = new CampaignSplitter(1_000_000).split(content, to, all, 20);
    expect(split.chunks.map((c) => c.length)).toEqual([20, 20, 10]);
    expect(split.oversized).toEqual([]);
  });

  it('packs by bytes, filling each body up to the limit exactly as it is sent', () => {
    const limit = 900;
    const split = new CampaignSplitter(limit).split(content, to, all, 1000);
    const sizes = split.chunks.map((c) => Buffer.byteLength(campaignBody(content, to, c)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
    expect(split.chunks.flat()).toEqual(all);
    // Each chunk is full: adding the next recipient would have crossed the limit.
    split.chunks.slice(0, -1).forEach((chunk, i) => {
      const next = split.chunks[i + 1][0];
      expect(Buffer.byteLength(campaignBody(content, to, [...chunk, next]))).toBeGreaterThan(limit);
    });
  });

  it('sets apart a recipient too large to send even alone', () => {
    const huge = [
      ...to.slice(0, 2),
      { email: 'big@example.com', attributes: { A: 'a'.repeat(2000) } },
    ];
    const split = new CampaignSplitter(1200).split(content, huge, [0, 1, 2], 1000);
    expect(split).toEqual({ chunks: [[0, 1]], oversized: [2] });
  });

  it('builds the same body, and the same chunks, from recipients serialised beforehand', () => {
    const mixed: CampaignRecipient[] = [
      ...to.slice(0, 5),
      { name: 'Zoë "Z" Ünal', email: 'zoe@example.com', attributes: { NAME: 'Zoë <3' } },
      { email: 'plain@example.com', attributes: { NAME: '李雷 😀' } },
      { email: 'last@example.com' },
    ];
    const json = mixed.map((r) => JSON.stringify(r));
    // Text beyond Latin-1 in the shared content, in one recipient, in both, and in neither.
    const sets = [
      [6, 0, 5, 2],
      [7, 1, 3],
      [7, 5],
    ];
    const shared = [
      content,
      {},
      { subject: 'Hi', preview: undefined, campaignId: 'c-1' },
      { subject: 'Welcome — {{NAME}}', body: '<p>— The team ✉</p>' },
    ];
    for (const indexes of sets) {
      for (const fields of shared) {
        const body = campaignBody(fields, mixed, indexes, json);
        const expected = JSON.stringify({
          ...fields,
          recipients: { to: indexes.map((i) => mixed[i]) },
        });
        expect(body.toString('utf8')).toBe(expected);
        expect(body.length).toBe(Buffer.byteLength(expected));
        expect(campaignBody(fields, mixed, indexes)).toEqual(body);
      }
    }
    const splitter = new CampaignSplitter(700);
    expect(splitter.split(content, mixed, [...mixed.keys()], 3, json)).toEqual(
      splitter.split(content, mixed, [...mixed.keys()], 3),
    );
  });
});
