import { createRequire } from 'node:module';

/**
 * patches/kafkajs+2.2.4.patch makes kafkajs' encoder take its buffers from Node's pool without
 * zero-filling them, sizes a record's buffer to what it holds, writes varints
 * straight into the buffer (int32-range varlongs without Long objects), and groups a produce
 * call's messages per partition in one pass, hashes record keys (murmur2) in 32-bit ints
 * rather than Long objects, checksums record batches (CRC-32C) eight bytes at a time, and
 * writes a record's headers into the record's own buffer. Every byte it hands on must still be
 * one it wrote, and what it writes the same bytes unpatched kafkajs wrote:
 * records encoded over a pool full of garbage decode back exactly, through kafkajs' own decoder.
 */
const load = createRequire(__filename);

interface Encoded {
  buffer: Buffer;
}
type Headers = Record<string, string | Buffer | Array<string | Buffer>>;
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
/** Kafka's header encoding as unpatched kafkajs has it, one encoder per header (records no longer call it). */
const encodeHeader = load('kafkajs/src/protocol/recordBatch/header/v0') as (header: {
  key: string;
  value: string | Buffer;
}) => Encoded;
interface VarEncoder extends Encoded {
  writeVarInt(value: number): VarEncoder;
  writeVarLong(value: number): VarEncoder;
  writeInt8(value: number): VarEncoder;
  writeVarIntBytes(value: Buffer | string | null): VarEncoder;
  writeVarIntArray(encoders: Encoded[]): VarEncoder;
}
const Encoder = load('kafkajs/src/protocol/encoder') as (new (size?: number) => VarEncoder) & {
  sizeOfVarInt(value: number): number;
  sizeOfVarLong(value: number): number;
};
const VarDecoder = Decoder as new (buffer: Buffer) => {
  readVarInt(): number;
  readVarLong(): { toString(): string };
};
const murmur2 = load('kafkajs/src/producer/partitioners/default/murmur2') as (
  key: Buffer | string,
) => number;
const Long = load('kafkajs/src/utils/long') as { fromValue(value: unknown): unknown };
const groupMessagesPerPartition = load('kafkajs/src/producer/groupMessagesPerPartition') as (
  input: Record<string, unknown>,
) => Record<string, { value: string }[]>;
const crc32C = load('kafkajs/src/protocol/recordBatch/crc32C') as (buffer: Buffer) => number;

/** CRC-32C one byte at a time (Castagnoli's polynomial, reflected), the textbook way. */
function bytewiseCrc32C(buffer: Buffer): number {
  let crc = -1;
  for (const byte of buffer) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ -1) >>> 0;
}

/** Kafka's murmur2 (`Utils.murmur2`) as Java computes it, in 32-bit ints, through BigInt. */
function javaMurmur2(data: Buffer): number {
  const int = (v: bigint) => BigInt.asIntN(32, v);
  const m = 0x5bd1e995n;
  const length = data.length;
  let h = int(0x9747b28cn ^ BigInt(length));
  const ushr = (v: bigint, bits: bigint) => int(BigInt.asUintN(32, v) >> bits);
  for (let i = 0; i + 4 <= length; i += 4) {
    let k = int(BigInt(data.readInt32LE(i)));
    k = int(k * m);
    k = int(k ^ ushr(k, 24n));
    k = int(k * m);
    h = int(int(h * m) ^ k);
  }
  const tail = length & ~3;
  const rest = length % 4;
  if (rest >= 3) h = int(h ^ BigInt(data[tail + 2] << 16));
  if (rest >= 2) h = int(h ^ BigInt(data[tail + 1] << 8));
  if (rest >= 1) h = int(int(h ^ BigInt(data[tail])) * m);
  h = int(h ^ ushr(h, 13n));
  h = int(h * m);
  h = int(h ^ ushr(h, 15n));
  return Number(h);
}

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

/**
 * A record as kafkajs 2.2.4 writes it unpatched: the body into one encoder and each header into
 * an encoder of its own, copied in after (a header with a list of values is one header each).
 */
function unpatchedRecord({ key, value, headers, offsetDelta }: RecordInput): Buffer {
  const headerList = Object.entries(headers).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((one) => encodeHeader({ key: k, value: one })),
  );
  const body = new Encoder()
    .writeInt8(0)
    .writeVarLong(0)
    .writeVarInt(offsetDelta)
    .writeVarIntBytes(key)
    .writeVarIntBytes(value)
    .writeVarIntArray(headerList).buffer;
  return Buffer.concat([new Encoder().writeVarInt(body.length).buffer, body]);
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

  it('is applied: varints go straight into the buffer, not through a Buffer.from each', () => {
    const from = jest.spyOn(Buffer, 'from');
    try {
      new Encoder().writeVarInt(300).writeVarLong(1_700);
      expect(from).not.toHaveBeenCalled();
    } finally {
      from.mockRestore();
    }
  });

  it('writes every varint and varlong kafkajs’ decoder reads back, in the size it said', () => {
    const values = [0, 1, -1, 63, 64, -64, -65, 300, -300, 2 ** 30, -(2 ** 31), 2 ** 31 - 1];
    // Beyond 32 bits a varlong takes kafkajs' own 64-bit path.
    const longs = [...values, 2 ** 31, -(2 ** 31) - 1, 1_700_000_000_000, -(2 ** 40)];
    const encoder = new Encoder(1);
    for (const v of values) encoder.writeVarInt(v);
    for (const v of longs) encoder.writeVarLong(v);
    const size =
      values.reduce((sum, v) => sum + Encoder.sizeOfVarInt(v), 0) +
      longs.reduce((sum, v) => sum + Encoder.sizeOfVarLong(v), 0);

    const decoder = new VarDecoder(encoder.buffer);
    expect(values.map(() => decoder.readVarInt())).toEqual(values);
    expect(longs.map(() => Number(decoder.readVarLong().toString()))).toEqual(longs);
    expect(encoder.buffer.length).toBe(size);
  });

  it('hashes keys as Kafka does (its own test vectors), in int arithmetic, not Long objects', () => {
    // Kafka's UtilsTest.testMurmur2: the partition of a keyed record is the same from any client.
    const vectors: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    const fromValue = jest.spyOn(Long, 'fromValue');
    try {
      expect(vectors.map(([key]) => murmur2(Buffer.from(key)))).toEqual(vectors.map(([, h]) => h));
      expect(fromValue).not.toHaveBeenCalled();
    } finally {
      fromValue.mockRestore();
    }
    let seed = 7;
    for (let n = 0; n < 2_000; n++) {
      const bytes = Array.from({ length: n % 41 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed & 0xff;
      });
      const key = Buffer.from(bytes);
      expect(murmur2(key)).toBe(javaMurmur2(key));
    }
    expect(murmur2('8f14e45f-ceea-467f')).toBe(javaMurmur2(Buffer.from('8f14e45f-ceea-467f')));
  });

  it('groups a produce call’s messages per partition, each partition’s in their order', () => {
    const messages = Array.from({ length: 9 }, (_, i) => ({ value: `m${i}` }));
    const grouped = groupMessagesPerPartition({
      topic: 'results',
      partitionMetadata: [{ partitionId: 0 }, { partitionId: 1 }, { partitionId: 2 }],
      messages,
      partitioner: ({ message }: { message: { value: string } }) => Number(message.value[1]) % 3,
    });
    expect(grouped).toEqual({
      0: [messages[0], messages[3], messages[6]],
      1: [messages[1], messages[4], messages[7]],
      2: [messages[2], messages[5], messages[8]],
    });
  });

  it('checksums record batches as CRC-32C, eight bytes at a time, with no array made for each', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283); // the standard check value
    const from = jest.spyOn(Uint32Array, 'from');
    try {
      // Every length modulo 8, so the eight-byte steps and the bytes after them both count.
      for (let length = 0; length < 300; length += 1) {
        const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 151 + length * 7) & 0xff));
        expect([length, crc32C(bytes)]).toEqual([length, bytewiseCrc32C(bytes)]);
      }
      expect(from).not.toHaveBeenCalled();
    } finally {
      from.mockRestore();
    }
  });

  it('writes a record, headers and all, into one buffer, byte for byte as unpatched', () => {
    const withLists: RecordInput = {
      key: Buffer.from('k'),
      value: Buffer.from('v'),
      headers: { ce_id: 'one', 'x-seen': ['a', Buffer.from([0xff]), 'ccc'], last: '' },
      offsetDelta: 300,
    };
    for (const record of [...records, withLists]) {
      expect(Buffer.from(encodeRecord(record).buffer)).toEqual(unpatchedRecord(record));
    }
    // The seven headers of a result event: one allocation for the record, none per header.
    const allocUnsafe = jest.spyOn(Buffer, 'allocUnsafe');
    try {
      encodeRecord({
        key: Buffer.from('9f1c7b7e'),
        value: Buffer.from('{"status":"sent"}'),
        headers: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((h) => [h, h])),
        offsetDelta: 0,
      });
      expect(allocUnsafe).toHaveBeenCalledTimes(1);
    } finally {
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
        Object.entries(want.headers).map(([k, v]) => [k, Buffer.from(v as string | Buffer)]),
      );
      expect(headers).toEqual(expected);
    });
  });
});
