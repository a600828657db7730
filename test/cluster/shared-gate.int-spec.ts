import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { Replicas, type Replica } from '../support/replicas';
import { PipelineFixture, RELAY_KEY } from '../support/service-harness';

jest.setTimeout(300_000);

/** What this test reads of a result event. */
interface Result {
  id: string;
  sourceeventid: string;
}

const PAUSE_MS = 6_000;
const AUTH = /refused the credentials/;

/** When one replica's readiness turned to the auth gate, and when it was ready again after. */
interface Turns {
  paused?: number;
  /** What readiness said when it turned. */
  reason?: string;
  resumed?: number;
}

/**
 * Polls every replica's /health/ready every 50 ms and records when each reported the auth gate
 * and, after that, when it was ready again. Stopped by the returned function.
 */
function watchReadiness(replicas: Replicas, turns: Map<string, Turns>): () => Promise<void> {
  let polling = true;
  const loops = replicas.all.map(async (replica) => {
    const seen: Turns = {};
    turns.set(replica.name, seen);
    while (polling) {
      const { status, body } = await replicas.readiness(replica);
      const at = Date.now();
      if (seen.paused === undefined && status === 503 && AUTH.test(body)) {
        seen.paused = at;
        seen.reason = body;
      }
      if (seen.paused !== undefined && seen.resumed === undefined && status === 200) {
        seen.resumed = at;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return async () => {
    polling = false;
    await Promise.all(loops);
  };
}

async function metrics(replica: Replica): Promise<string> {
  return (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
}

describe('three replicas and a vendor that starts refusing our key', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('shared-gate');
  const replicas = new Replicas(fixture, {
    PAUSE_ON_AUTH_FAILURE_MS: String(PAUSE_MS),
    BATCH_MAX_RECIPIENTS: '10',
    LOG_LEVEL: 'log',
  });
  let stopWatching: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    await fixture.start();
    await replicas.startReady(3);
  });
  afterAll(async () => {
    await stopWatching?.();
    await replicas.stopAll();
    await fixture.stop();
  });

  it('pauses all three within a second of the first 401, and resumes them together', async () => {
    // Traffic flowing on every partition, so every replica sends.
    const before = Array.from({ length: 30 }, (_, i) => signUp(i, run));
    await fixture.publish('TOPIC_USER_SIGNED_UP', before, (e) => e.data.userId);
    const sent = () =>
      new Set(
        fixture.collector
          .results<Result>(fixture.topics.TOPIC_CAMPAIGN_SENT)
          .map((r) => r.sourceeventid),
      );
    await waitFor(() => (sent().size >= before.length ? true : undefined), {
      timeoutMs: 120_000,
      what: 'results for the sign-ups before the fault',
    });

    // Now the vendor refuses the key. Sign-ups keep coming, all on one key: one partition, so
    // one replica is refused; the two others learn it from Redis, not from the vendor.
    const turns = new Map<string, Turns>();
    stopWatching = watchReadiness(replicas, turns);
    fixture.sandbox.setFaults({ statuses: [{ status: 401, share: 1 }] });
    const during: ReturnType<typeof signUp>[] = [];
    const allPaused = () => [...turns.values()].every((t) => t.paused !== undefined);
    await waitFor(
      async () => {
        if (allPaused()) return true;
        const event = signUp(1_000 + during.length, run);
        during.push(event);
        await fixture.publish('TOPIC_USER_SIGNED_UP', [event], () => 'one-key');
        return undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'every replica to report the auth gate' },
    );
    const pausedMetrics = await Promise.all(replicas.all.map(metrics));
    // Sign-ups for every partition while the gate is closed: they wait for it to reopen.
    const whilePaused = Array.from({ length: 30 }, (_, i) => signUp(2_000 + i, run));
    await fixture.publish('TOPIC_USER_SIGNED_UP', whilePaused, (e) => e.data.userId);

    const refused = () => fixture.sandbox.requests.filter((r) => r.status === 401);
    const firstRefusal = Date.parse(refused()[0].at);
    const pausedAfter = [...turns].map(([name, t]) => `${name} ${t.paused! - firstRefusal} ms`);
    console.log(
      `first 401 -> each replica's readiness reported the auth gate: ${pausedAfter.join(', ')}`,
    );
    for (const t of turns.values()) expect(t.paused! - firstRefusal).toBeLessThanOrEqual(1_000);
    // Only the refused replica knocked, and only with what it had under way.
    console.log(`401s while the vendor refused the key: ${refused().length}`);
    expect(refused().length).toBeLessThanOrEqual(3);

    // Readiness on the two others says the refusal was a peer's.
    const byPeer = [...turns.values()].filter((t) => t.reason!.includes('reported by a peer'));
    expect(byPeer).toHaveLength(2);

    // Every replica showed the close while it stood, and says who closed it.
    for (const text of pausedMetrics) {
      expect(text).toMatch(/mailbridge_vendor_gate_closed\{cause="auth"\} 1/);
    }
    const origins = pausedMetrics.map((text) =>
      /mailbridge_vendor_gate_closes_total\{cause="auth",origin="self"\} 1/.test(text)
        ? 'self'
        : /mailbridge_vendor_gate_closes_total\{cause="auth",origin="peer"\} 1/.test(text)
          ? 'peer'
          : 'none',
    );
    expect(origins.sort()).toEqual(['peer', 'peer', 'self']);

    // The key works again: at the end of the pause all three reopen together.
    fixture.sandbox.setFaults({});
    await waitFor(
      () => ([...turns.values()].every((t) => t.resumed !== undefined) ? true : undefined),
      { timeoutMs: 60_000, what: 'every replica to be ready again' },
    );
    await stopWatching();
    stopWatching = undefined;
    const resumed = [...turns.values()].map((t) => t.resumed!);
    const spread = Math.max(...resumed) - Math.min(...resumed);
    console.log(
      `resumed (ms after the first 401): ${[...turns].map(([n, t]) => `${n} ${t.resumed! - firstRefusal}`).join(', ')}; spread ${spread} ms`,
    );
    expect(spread).toBeLessThanOrEqual(1_500);
    for (const at of resumed) expect(at - firstRefusal).toBeGreaterThanOrEqual(PAUSE_MS - 100);
    // From shortly after the last replica paused until the pause ended, nobody knocked at all.
    const quietFrom = Math.max(...[...turns.values()].map((t) => t.paused!)) + 500;
    const knocks = fixture.sandbox.requests.filter((r) => {
      const at = Date.parse(r.at);
      return at >= quietFrom && at < firstRefusal + PAUSE_MS;
    });
    expect(knocks).toEqual([]);

    // Nothing lost, nothing twice: one result per event, every one of them sent.
    const events = [...before, ...during, ...whilePaused];
    await waitFor(() => (sent().size >= events.length ? true : undefined), {
      timeoutMs: 120_000,
      what: 'a result for every event',
    });
    const t = fixture.topics;
    const results = fixture.collector.results<Result>(t.TOPIC_CAMPAIGN_SENT);
    const ids = new Map<string, Set<string>>();
    for (const r of results)
      ids.set(r.sourceeventid, (ids.get(r.sourceeventid) ?? new Set()).add(r.id));
    expect([...ids.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect([...ids.values()].every((s) => s.size === 1)).toBe(true);
    expect(fixture.collector.count(t.TOPIC_DISPATCH_FAILED)).toBe(0);
    expect(fixture.collector.count(t.TOPIC_DEAD_LETTER)).toBe(0);

    // Each replica said once that it paused (its own refusal, or a peer's) and once that it resumed.
    const logs = replicas.all.map((r) => r.service.stdout());
    const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;
    const own = /vendor refused the credentials; check VENDOR_\* keys/g;
    const peer = /a peer replica reports the vendor refused the credentials/g;
    expect(logs.map((l) => count(l, own) + count(l, peer))).toEqual([1, 1, 1]);
    expect(logs.map((l) => count(l, peer)).sort()).toEqual([0, 1, 1]);
    expect(logs.map((l) => count(l, /resuming: trying the vendor again/g))).toEqual([1, 1, 1]);
    for (const l of logs) expect(l).not.toContain(RELAY_KEY);
  });
});
