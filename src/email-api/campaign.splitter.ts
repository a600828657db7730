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
 * The exact body `sendCampaign` posts for a chunk, as UTF-8; the splitter's sizes add up to its
 * length. With `json` (each recipient of `to` already serialised) the recipients' text is joined
 * into the body rather than serialised a second time: the same bytes, one `JSON.stringify` of
 * each recipient in all.
 */
export function campaignBody(
  content: Omit<CampaignRequest, 'recipients'>,
  to: CampaignRecipient[],
  indexes: number[],
  json?: readonly string[],
): Buffer {
  if (!json) {
    return Buffer.from(
      JSON.stringify({ ...content, recipients: { to: indexes.map((i) => to[i]) } }),
    );
  }
  // `…,"recipients":{"to":[]}}` with the recipients written between the brackets, each straight
  // into the body. Joined into one string first, one character beyond Latin-1 in the shared
  // content (the welcome body's em dash) made V8 keep all of it at two bytes a character, and
  // that string was built, encoded whole and dropped for every request, at several times the
  // cost of this (`npm run bench:body` compares them, docs/benchmark.md).
  const empty = JSON.stringify({ ...content, recipients: { to: [] } });
  const head = empty.slice(0, -3);
  let size = Buffer.byteLength(head) + Math.max(0, indexes.length - 1) + CLOSE.length;
  for (const i of indexes) size += Buffer.byteLength(json[i]);
  const body = Buffer.allocUnsafe(size);
  let at = body.write(head, 0);
  indexes.forEach((i, n) => {
    if (n > 0) body[at++] = COMMA;
    at += body.write(json[i], at);
  });
  // The body comes from allocUnsafe: a byte it did not write would send whatever memory held.
  if (at + CLOSE.copy(body, at) !== size) throw new Error('campaign body size mismatch');
  return body;
}

const COMMA = 0x2c;
const CLOSE = Buffer.from(']}}');

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
