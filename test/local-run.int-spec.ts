import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';
import {
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './support/kafka-helpers';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..');

/** The parent PID of a process, from /proc; undefined once it has gone. */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`. */
function descendants(root: number): number[] {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = pids.filter((pid) => frontier.includes(parentOf(pid) ?? -1));
    found.push(...children);
    frontier = children;
  }
  return found;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && parentOf(pid) !== undefined;

async function ready(port: number): Promise<true | undefined> {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`, {
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);
  return response?.status === 200 ? true : undefined;
}

/**
 * README, "Quick start": `npm run local` runs Kafka, the sandbox and the service in the
 * foreground, and Ctrl-C or a SIGTERM to npm stops all of them and leaves no process behind.
 * Each case starts it as a user would (through npm), on ports of its own, waits until the
 * service is ready, stops it, and then looks for every process it had started.
 */
describe('npm run local', () => {
  let npm: ChildProcess | undefined;
  let started: number[] = [];
  let kafkaDir: string | undefined;
  afterEach(() => {
    // Whatever a failing case left: killed here, by PID, and its broker stopped.
    for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
    if (npm?.exitCode === null) npm.kill('SIGKILL');
    if (kafkaDir) {
      spawn('bash', ['scripts/kafka/kafka.sh', 'stop'], {
        cwd: ROOT,
        env: { ...process.env, KAFKA_DIR: kafkaDir },
        stdio: 'ignore',
      });
    }
  });

  async function startLocal(env: Record<string, string>) {
    const httpPort = await freePort();
    let output = '';
    npm = spawn('npm', ['run', 'local'], {
      cwd: ROOT,
      // Its own process group, as a terminal gives a foreground job: Ctrl-C signals the group.
      detached: true,
      env: {
        ...process.env,
        HTTP_PORT: String(httpPort),
        SANDBOX_PORT: String(await freePort()),
        UNSUBSCRIBE_HTTP_PORT: String(await freePort()),
        KAFKA_GROUP_ID: uniqueName('local'),
        NO_COLOR: '1',
        ...env,
      },
    });
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // 'close', not 'exit': it comes once the output pipes are drained too, so the last line
    // written before exiting is in `output`.
    const exited = new Promise<number | null>((resolve) => npm?.once('close', resolve));
    await waitFor(() => ready(httpPort), {
      what: 'the service to be ready',
      timeoutMs: 150_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; output:\n${output}`);
    });
    started = descendants(npm.pid!);
    return { pid: npm.pid!, exited, output: () => output };
  }

  /** Waits for every process in `pids` to be gone; returns those still alive after 60 s. */
  async function leftAfterStop(pids: number[]): Promise<number[]> {
    await waitFor(() => (pids.some(alive) ? undefined : true), {
      what: 'every process to stop',
      timeoutMs: 60_000,
    }).catch(() => undefined);
    return pids.filter(alive);
  }

  it('stops the service, the sandbox and its own broker when npm gets SIGTERM', async () => {
    kafkaDir = mkdtempSync(join(tmpdir(), 'local-run-kafka-'));
    const kafkaPort = await freePort();
    const local = await startLocal({
      KAFKA_BROKERS: '',
      KAFKA_PORT: String(kafkaPort),
      // A free port of its own, as PrivateBroker does: port + 1 (kafka.sh's default) may be taken.
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      KAFKA_DIR: kafkaDir,
    });
    const broker = Number(readFileSync(join(kafkaDir, 'broker.pid'), 'utf8'));
    expect(alive(broker)).toBe(true);
    const node = started.filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/'),
    );
    expect(node).toHaveLength(2); // the service and the sandbox

    process.kill(local.pid, 'SIGTERM');
    expect(await leftAfterStop([...started, broker])).toEqual([]);
    expect(await local.exited).not.toBeUndefined();
    expect(local.output()).toContain('[local] stopped');
    rmSync(kafkaDir, { recursive: true, force: true });
    kafkaDir = undefined;
  });

  it('stops everything on Ctrl-C (SIGINT to its process group), using a broker it did not start', async () => {
    // `npm test` has just built dist/: `npm run local` leaves a current build as it is, since the
    // spec files running beside this one start the service from it.
    const built = statSync(join(ROOT, 'dist/main.js')).mtimeMs;
    const local = await startLocal({ KAFKA_BROKERS: testBrokers().join(',') });
    expect(started.length).toBeGreaterThanOrEqual(2);
    expect(statSync(join(ROOT, 'dist/main.js')).mtimeMs).toBe(built);

    process.kill(-local.pid, 'SIGINT');
    expect(await leftAfterStop(started)).toEqual([]);
    expect(await local.exited).not.toBeUndefined();
    expect(local.output()).toContain('[local] stopped');
  });

  it.each([
    ['SIGTERM to npm', (pid: number) => process.kill(pid, 'SIGTERM')],
    ['Ctrl-C (SIGINT to its process group)', (pid: number) => process.kill(-pid, 'SIGINT')],
  ])('npm run results stops, consumer and all, on %s', async (_how, signal) => {
    const topic = uniqueName('results');
    await createTopics(testKafka(), [topic], 1);
    // A record that is not a CloudEvent is printed as it is; a result, decoded as one document.
    await produce(testKafka(), topic, [
      { key: 'k', value: '{"marker":"results-tool"}' },
      {
        key: 'k',
        value: '{"requestId":"r-1"}',
        headers: {
          ce_specversion: '1.0',
          ce_id: 'result-1',
          ce_source: 'mailbridge',
          ce_type: 'email.campaign.sent.v1',
          ce_time: '2026-11-21T10:00:00.000Z',
          ce_sourceeventid: 'evt-1',
          'content-type': 'application/json',
        },
      },
    ]);
    let output = '';
    npm = spawn(
      'npm',
      ['run', 'results', '--', '--brokers', testBrokers().join(','), '--topics', topic],
      { cwd: ROOT, env: process.env, detached: true },
    );
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => (output.includes('result-1') ? true : undefined), {
      what: 'the results tool to print the records',
      timeoutMs: 60_000,
    });
    expect(output).toContain('{"marker":"results-tool"}');
    const decoded = /\{"id":"result-1".*\}/.exec(output)?.[0];
    expect(JSON.parse(decoded ?? '{}')).toEqual({
      id: 'result-1',
      time: '2026-11-21T10:00:00.000Z',
      type: 'email.campaign.sent.v1',
      source: 'mailbridge',
      specversion: '1.0',
      datacontenttype: 'application/json',
      sourceeventid: 'evt-1',
      data: { requestId: 'r-1' },
    });
    started = [npm.pid!, ...descendants(npm.pid!)];
    const exited = new Promise<number | null>((resolve) => npm?.once('exit', resolve));
    signal(npm.pid!);
    expect(await leftAfterStop(started)).toEqual([]);
    expect(await exited).toBe(0); // stopped by its own handler, not killed by the signal
  });
});
