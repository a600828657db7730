import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DroppedLines } from './dropped-lines';
import { bufferedDestination, createServiceLogger } from './service-logger';

const LIMIT = 64 * 1024;
const LINES = 5_000;

type Destination = ReturnType<typeof bufferedDestination> & { _len: number };

/** Reads the FIFO until a line matches, then stops: what was read, as lines. */
function readUntil(fifo: string, done: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let rest = '';
    const reader = createReadStream(fifo, { encoding: 'utf8' });
    reader.on('error', reject);
    reader.on('data', (chunk: string | Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      if (parts.some(done)) {
        reader.destroy();
        resolve(lines);
      }
    });
  });
}

function ended(destination: Destination): Promise<void> {
  return new Promise((resolve) => {
    destination.on('close', () => resolve());
    destination.end();
  });
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-log-lines-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('log lines while stdout is not read', () => {
  it('holds at most LOG_BUFFER_MAX_BYTES, drops whole lines, counts them and says so once read', async () => {
    // A pipe nobody reads yet, as stdout is when its reader falls behind: the kernel takes 64 KiB,
    // then every write waits.
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const destination = bufferedDestination(fd, LIMIT) as Destination;
    const logger = createServiceLogger(
      { level: 'log', format: 'json', secrets: [], bufferMaxBytes: LIMIT },
      destination,
    );

    let held = 0;
    for (let n = 0; n < LINES; n++) {
      logger.log({ msg: 'sent', n, padding: 'x'.repeat(150) }, 'ActionRunner');
      held = Math.max(held, destination._len);
    }
    expect(held).toBeLessThanOrEqual(LIMIT);
    expect(logger.droppedLines).toBeGreaterThan(LINES / 2);
    const dropped = logger.droppedLines;

    const lines = await readUntil(fifo, (line) => line.includes('dropped'));
    const parsed = lines.map((line) => JSON.parse(line) as { n?: number; msg: string });
    const kept = parsed.filter((line) => line.n !== undefined).map((line) => line.n as number);
    expect(kept).toEqual([...kept].sort((a, b) => a - b)); // in order, none twice
    expect(kept.length + dropped).toBe(LINES);
    expect(parsed.at(-1)).toMatchObject({
      level: 'warn',
      context: 'ServiceLogger',
      msg: `${dropped} log lines dropped: stdout was not read as fast as they came, and LOG_BUFFER_MAX_BYTES (65536 bytes) of lines waited already`,
    });
    await ended(destination);
  });
});

describe('log lines while stdout is read', () => {
  it('goes out in writes of up to 1 MiB, not 16 KiB, so that a busy service keeps up', async () => {
    const file = join(dir, 'out.log');
    const destination = bufferedDestination(openSync(file, 'w'), 8 * 2 ** 20) as Destination;
    const written: number[] = [];
    destination.on('write', (bytes: number) => written.push(bytes));
    const line = `${JSON.stringify({ msg: 'sent', padding: 'x'.repeat(380) })}\n`;
    for (let n = 0; n < 10_000; n++) destination.write(line); // about 4 MB in one turn
    await ended(destination);
    expect(written.reduce((a, b) => a + b, 0)).toBe(10_000 * line.length);
    expect(Math.max(...written)).toBeGreaterThan(512 * 1024);
    expect(written.length).toBeLessThanOrEqual(8);
  });
});

describe(DroppedLines.name, () => {
  it('says a run of drops once the destination writes again, and counts all', async () => {
    const destination = new EventEmitter();
    const warnings: string[] = [];
    const dropped = new DroppedLines(1024, (message) => warnings.push(message));
    dropped.watch(destination);

    destination.emit('write', 10); // nothing dropped: nothing to say
    destination.emit('drop');
    destination.emit('drop');
    destination.emit('write', 10);
    destination.emit('write', 10); // one warning for the run
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([
      '2 log lines dropped: stdout was not read as fast as they came, and LOG_BUFFER_MAX_BYTES (1024 bytes) of lines waited already',
    ]);
    expect(dropped.total).toBe(2);
  });

  it('counts a warning dropped in its turn, and says its lines with the next', async () => {
    const destination = new EventEmitter();
    const warnings: string[] = [];
    let full = true;
    const dropped = new DroppedLines(1024, (message) => {
      if (full)
        destination.emit('drop'); // the warning did not fit either
      else warnings.push(message);
    });
    dropped.watch(destination);

    destination.emit('drop');
    destination.emit('write', 10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
    full = false;
    destination.emit('write', 10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([expect.stringMatching(/^2 log lines dropped/) as string]);
    expect(dropped.total).toBe(2);
  });
});
