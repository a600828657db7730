import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../dist/main.js');

export interface Service {
  child: ChildProcess;
  /** stdout and stderr, in the order they arrived. */
  output: () => string;
  /** stdout alone: where the service's log lines go. */
  stdout: () => string;
  exited: Promise<number | null>;
}

/** Runs the built service as a real process with exactly the given environment. */
export function startService(env: Record<string, string>): Service {
  let output = '';
  let stdout = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
  });
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output: () => output, stdout: () => stdout, exited };
}

/**
 * Sends SIGTERM and resolves with the exit code and how long the exit took; gives up after 30 s
 * (code `undefined`), far beyond any bound the tests assert, so that a hang fails as a number.
 */
export async function terminate(
  service: Service,
): Promise<{ code: number | null | undefined; ms: number }> {
  const sent = Date.now();
  service.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), 30_000);
  });
  const code = await Promise.race([service.exited, gaveUp]);
  clearTimeout(timer);
  return { code, ms: Date.now() - sent };
}
