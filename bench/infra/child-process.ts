import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './repo-root';

const running = new Set<ChildProcess>();

export interface StartedChild {
  child: ChildProcess;
  pid: number;
  /** Where its stdout and stderr go. */
  logFile: string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<string>;
}

/**
 * Starts `node <script>` with the harness's own Node (24), logging to `<logDir>/<name>.log`
 * (.cache/bench-logs unless the caller, e.g. the chaos suite, keeps its logs elsewhere).
 */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  {
    ipc = false,
    logDir = join(repoRoot(), '.cache/bench-logs'),
    nodeArgs = [],
  }: { ipc?: boolean; logDir?: string; nodeArgs?: string[] } = {},
): StartedChild {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  // The child writes its output to the file itself: piped through this process, its lines would
  // wait on the harness's busy event loop, and the child would hold them in memory meanwhile
  // (a service logs a line per event).
  const log = openSync(logFile, 'w');
  const options = { env: { PATH: process.env.PATH ?? '', ...env }, cwd: repoRoot() };
  let child: ChildProcess;
  try {
    child = ipc
      ? fork(script, [], { ...options, execArgv: nodeArgs, stdio: ['ignore', log, log, 'ipc'] })
      : spawn(process.execPath, [...nodeArgs, script], {
          ...options,
          stdio: ['ignore', log, log],
        });
  } finally {
    closeSync(log); // the child has its own copy
  }
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  running.add(child);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(signal ?? String(code));
    });
  });
  return { child, pid: child.pid, logFile, exited };
}

/**
 * How the process ended (its exit code, or the signal that ended it), or undefined while it runs.
 * A signal counts: a process that runs out of heap aborts (SIGABRT) and has no exit code.
 */
export function howEnded(started: StartedChild): string | undefined {
  const { exitCode, signalCode } = started.child;
  return signalCode ?? (exitCode === null ? undefined : String(exitCode));
}

/** SIGTERM, then SIGKILL if the process has not ended within `graceMs`. */
export async function stopChild(started: StartedChild, graceMs = 5_000): Promise<string> {
  if (howEnded(started) !== undefined) return started.exited;
  started.child.kill('SIGTERM');
  const timer = setTimeout(() => started.child.kill('SIGKILL'), graceMs);
  const result = await started.exited;
  clearTimeout(timer);
  return result;
}

/** Last resort on an interrupted run: no child of this harness may outlive it. */
export function killAllChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Waits for one IPC message of the given type from a forked child. */
export function nextMessage<T extends { type: string }>(
  started: StartedChild,
  type: T['type'],
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no "${type}" message within ${timeoutMs} ms (see ${started.logFile})`));
    }, timeoutMs);
    const onMessage = (message: unknown) => {
      if (typeof message === 'object' && message !== null && (message as T).type === type) {
        cleanup();
        resolve(message as T);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(
        new Error(`child exited (${signal ?? code}) before "${type}"; see ${started.logFile}`),
      );
    };
    const cleanup = () => {
      clearTimeout(timer);
      started.child.off('message', onMessage);
      started.child.off('exit', onExit);
    };
    started.child.on('message', onMessage);
    started.child.once('exit', onExit);
  });
}
