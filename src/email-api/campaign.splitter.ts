import type { CampaignRecipient, CampaignRequest } from './vendor.types';

export interface CampaignSplit {
  /** Groups of recipient indexes, each small enough for one request. */
  chunks: number[][];
  /** Recipients that do not fit into a request even alone. */
  oversized: number[];
}

/**
 * Packs recipients, in order, into requests of at most `maxRecipients` recipients and at most
 * `maxBodyBytes` bytes of JSON body, measuring each recipient's serialised size once (from `json`,
 * each recipient already serialised, when the caller has it).
 */
export class CampaignSplitter {
  constructor(private readonly maxBodyBytes: number) {}

  split(
    content: Omit<CampaignRequest, 'recipients'>,
    to: CampaignRecipient[],
    indexes: number[],
    maxRecipients: number,
    json?: readonly string[],
  ): CampaignSplit {
    const base = byteLength({ ...content, recipients: { to: [] } });
    const split: CampaignSplit = { chunks: [], oversized: [] };
    let chunk: number[] = [];
    let bytes = base;
    for (const index of indexes) {
      const size = Buffer.byteLength(json?.[index] ?? JSON.stringify(to[index]), 'utf8');
      if (base + size > this.maxBodyBytes) {
        split.oversized.push(index);
        continue;
      }
      const added = chunk.length === 0 ? size : size + 1; // the comma between array items
      if (chunk.length >= maxRecipients || bytes + added > this.maxBodyBytes) {
        split.chunks.push(chunk);
        chunk = [];
        bytes = base;
      }
      bytes += chunk.length === 0 ? size : size + 1;
      chunk.push(index);
    }
    if (chunk.length > 0) split.chunks.push(chunk);
    return split;
  }
}

/**
 * The exact body `sendCampaign` posts for a chunk; the splitter's sizes add up to its length.
 * With `json` (each recipient of `to` already serialised) the recipients' text is joined into
 * the body rather than serialised a second time: the same bytes, one `JSON.stringify` of each
 * recipient in all.
 */
export function campaignBody(
  content: Omit<CampaignRequest, 'recipients'>,
  to: CampaignRecipient[],
  indexes: number[],
  json?: readonly string[],
): string {
  if (!json) return JSON.stringify({ ...content, recipients: { to: indexes.map((i) => to[i]) } });
  // `…,"recipients":{"to":[]}}` with the recipients written between the brackets.
  const empty = JSON.stringify({ ...content, recipients: { to: [] } });
  return `${empty.slice(0, -3)}${indexes.map((i) => json[i]).join(',')}]}}`;
}

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
