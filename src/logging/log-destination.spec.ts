import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';

/**
 * patches/sonic-boom+4.2.1.patch: the destination the service logs to (`pino.destination`, in
 * the background) keeps the byte length of the text it has pending rather than measuring it again
 * on every line. Measuring it flattened the whole pending concatenation each time: a line logged
 * while a write was under way cost a copy of everything logged before it (7.5 KB per sign-up of
 * 49 KB allocated, measured with the benchmark). What it writes must not change: every line,
 * whole, in order, in writes of at most `maxWrite` bytes, multi-byte text included.
 */
type Destination = ReturnType<typeof pino.destination> & {
  _bufs: string[];
  maxWrite: number;
};

function destination(dir: string): { stream: Destination; file: string } {
  const file = join(dir, 'out.log');
  const stream = pino.destination({ fd: openSync(file, 'w'), sync: false }) as Destination;
  return { stream, file };
}

function ended(stream: Destination): Promise<void> {
  return new Promise((resolve) => {
    stream.on('close', () => resolve());
    stream.end();
  });
}

describe('the log destination with the project’s patch', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is applied: a line logged while a write is under way measures only itself', async () => {
    const { stream } = destination(dir);
    stream.write('{"msg":"first"}\n'); // starts a write: the lines below wait for it
    const byteLength = jest.spyOn(Buffer, 'byteLength');
    try {
      for (let i = 0; i < 100; i++) stream.write(`{"msg":"line ${i}"}\n`);
      expect(byteLength).toHaveBeenCalledTimes(100);
    } finally {
      byteLength.mockRestore();
    }
    await ended(stream);
  });

  it('writes every line whole and in order, in writes of at most maxWrite bytes', async () => {
    const { stream, file } = destination(dir);
    const texts = ['plain', 'café ünïcødé', '日本語のテキスト', 'emoji 📨✉️', 'x'.repeat(900)];
    const lines: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      const line = `${JSON.stringify({ n: i, msg: texts[i % texts.length].repeat(1 + (i % 7)) })}\n`;
      lines.push(line);
      stream.write(line);
    }
    expect(stream._bufs.length).toBeGreaterThan(10); // the burst spans many pending writes
    for (const pending of stream._bufs) {
      expect(Buffer.byteLength(pending)).toBeLessThanOrEqual(stream.maxWrite);
    }
    await ended(stream);
    expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
  });
});
