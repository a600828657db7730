import { createRequire } from 'node:module';

/**
 * patches/kafkajs+2.2.4.patch makes kafkajs' encoder take its buffers from Node's pool without
 * zero-filling them, and sizes a record's and a header's buffer to what they hold. Every byte it
 * hands on must still be one it wrote: records encoded over a pool full of garbage decode back
 * exactly, through kafkajs' own decoder.
 */
const load = createRequire(__filename);

interface Encoded {
  buffer: Buffer;
}
type Headers = Record<string, string | Buffer>;
interface RecordInput {
  key: Buffer | null;
  value: Buffer;
  headers: Headers;
  offsetDelta: number;
}
interface DecodedRecord {
  key: Buffer | null;
  value: Buffer;
  headers: Record<string, Buffer>;
}

const encodeRecord = load('kafkajs/src/protocol/recordBatch/record/v0') as (
  record: RecordInput,
) => Encoded;
const { RecordBatch } = load('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (batch: Record<string, unknown>) => Promise<Encoded>;
};
const decodeBatch = load('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  decoder: unknown,
) => Promise<{ records: DecodedRecord[] }>;
const Decoder = load('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;

/**
 * Fills the unused rest of Node's buffer pool (at least 4 KB of it) with 0xee, so that a byte
 * the encoder hands on without writing it shows.
 */
function dirtyPool(): void {
  let probe = Buffer.allocUnsafe(1);
  if (probe.buffer.byteLength - probe.byteOffset < 4096) {
    Buffer.allocUnsafe(4095); // does not fit: a new pool, whose first half this takes
    probe = Buffer.allocUnsafe(1);
  }
  new Uint8Array(probe.buffer, probe.byteOffset).fill(0xee);
}

const records: RecordInput[] = [
  {
    key: Buffer.from('order-1'),
    value: Buffer.from(JSON.stringify({ orderId: 'order-1', note: 'é'.repeat(300) })),
    headers: {
      ce_id: 'b7f7c5e0-1d2a-4a53-9d3f-0e6f4c2d7a11',
      ce_type: 'com.example.email.campaign.sent.v1',
      ce_ünïcode: 'värde',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      ce_long: 'x'.repeat(700),
      ce_bytes: Buffer.from([0, 1, 2, 0xff]),
      ce_empty: '',
    },
    offsetDelta: 0,
  },
  { key: null, value: Buffer.from('{}'), headers: {}, offsetDelta: 1 },
  { key: Buffer.alloc(0), value: Buffer.alloc(2_000, 'v'), headers: { a: 'b' }, offsetDelta: 2 },
];

describe('kafkajs encoding with the project’s patch', () => {
  it('is applied: the encoder takes unzeroed buffers', () => {
    const alloc = jest.spyOn(Buffer, 'alloc');
    const allocUnsafe = jest.spyOn(Buffer, 'allocUnsafe');
    try {
      encodeRecord(records[0]);
      expect(alloc).not.toHaveBeenCalled();
      expect(allocUnsafe).toHaveBeenCalled();
    } finally {
      alloc.mockRestore();
      allocUnsafe.mockRestore();
    }
  });

  it('decodes back every key, value and header it encoded', async () => {
    dirtyPool();
    const batch = await RecordBatch({
      records: records.map((r) => {
        dirtyPool();
        return encodeRecord(r);
      }),
      lastOffsetDelta: records.length - 1,
      firstTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_000,
    });

    const decoded = await decodeBatch(new Decoder(batch.buffer));

    expect(decoded.records).toHaveLength(records.length);
    decoded.records.forEach((got, i) => {
      const want = records[i];
      expect(got.key === null ? null : Buffer.from(got.key)).toEqual(want.key);
      expect(Buffer.from(got.value)).toEqual(want.value);
      const headers = Object.fromEntries(
        Object.entries(got.headers).map(([k, v]) => [k, Buffer.from(v)]),
      );
      const expected = Object.fromEntries(
        Object.entries(want.headers).map(([k, v]) => [k, Buffer.from(v)]),
      );
      expect(headers).toEqual(expected);
    });
  });
});
