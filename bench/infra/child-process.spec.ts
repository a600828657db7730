import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nextMessage, startNode } from './child-process';

describe('startNode', () => {
  const nodeArgs = ['--max-old-space-size=77', '--heap-growing-percent=100'];
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-child-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, code: string) => {
    writeFileSync(join(dir, name), code);
    return join(dir, name);
  };

  // The floors are forked for IPC; their heap limit and profiler come as node flags.
  it('gives a child forked for IPC the node flags it is given', async () => {
    const script = write(
      'argv.cjs',
      "process.send({ type: 'argv', execArgv: process.execArgv }, () => process.exit(0));",
    );
    const started = startNode('argv', script, {}, { ipc: true, logDir: dir, nodeArgs });
    const said = await nextMessage<{ type: 'argv'; execArgv: string[] }>(started, 'argv', 10_000);
    expect(said.execArgv).toEqual(nodeArgs);
    expect(await started.exited).toBe('0');
  });

  it('gives a spawned child the node flags it is given', async () => {
    // No IPC channel here: the child says whether its flags are those in its exit code.
    const expected = JSON.stringify(nodeArgs);
    const script = write(
      'flags.cjs',
      `process.exit(JSON.stringify(process.execArgv) === ${JSON.stringify(expected)} ? 0 : 3);`,
    );
    const started = startNode('flags', script, {}, { logDir: dir, nodeArgs });
    expect(await started.exited).toBe('0');
  });
});
