import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../..');

/** Runs a command to its end; rejects with its output when it exits non-zero or times out. */
export function run(
  command: string,
  args: string[],
  { timeoutMs = 60_000, env = process.env }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) {
          const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n');
          reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${tail}`));
        } else resolve(stdout.trim());
      },
    );
  });
}

export const docker = (args: string[], timeoutMs?: number) => run('docker', args, { timeoutMs });

/** What `docker inspect` says about a container (the fields the tests read). */
export interface ContainerState {
  Config: { User: string; Image: string };
  HostConfig: { ReadonlyRootfs: boolean; NetworkMode: string };
  State: {
    Status: string;
    Running: boolean;
    ExitCode: number;
    OOMKilled: boolean;
    Health?: { Status: string; Log: Array<{ ExitCode: number; Output: string }> };
  };
}

export async function inspect(id: string): Promise<ContainerState> {
  return (JSON.parse(await docker(['inspect', id])) as ContainerState[])[0];
}

/**
 * Waits until the container's health check reports `healthy`; fails at once when it stops
 * running or reports `unhealthy`, and after `timeoutMs`, saying what the last probe answered.
 */
export async function waitHealthy(id: string, timeoutMs = 90_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const state = (await inspect(id)).State;
    const health = state.Health?.Status ?? 'none';
    if (health === 'healthy') return Date.now() - started;
    const last = state.Health?.Log.at(-1)?.Output.trim() ?? '';
    if (!state.Running || health === 'unhealthy' || Date.now() - started > timeoutMs) {
      throw new Error(
        `container ${id.slice(0, 12)} is ${state.Status}, health ${health} after ` +
          `${Date.now() - started} ms (last probe: ${last || 'none'})\n${await logs(id)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The container's last log lines, for a failure message. */
export async function logs(id: string, lines = 40): Promise<string> {
  return run('docker', ['logs', '--tail', String(lines), id]).catch((e: Error) => e.message);
}

/** scripts/container/dockerd.sh: `start` uses a running engine or starts one; `stop` only ours. */
export function engine(action: 'start' | 'stop'): void {
  execFileSync('bash', [join(ROOT, 'scripts/container/dockerd.sh'), action], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** scripts/container/base-images.sh: the stand-in base image, built or from the cache. */
export function baseImages(): void {
  execFileSync('bash', [join(ROOT, 'scripts/container/base-images.sh')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 15 * 60_000,
  });
}
