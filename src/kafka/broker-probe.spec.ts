import type { Admin } from 'kafkajs';
import { BrokerProbe } from './broker-probe';

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** An admin whose `describeCluster` answers when the test says so. */
function fakeAdmin() {
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    describeCluster: () =>
      new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  };
  const settle = async (error?: Error) => {
    await flush(); // the check connects before it asks
    const next = pending.shift()!;
    if (error) next.reject(error);
    else next.resolve();
    await flush();
  };
  return { admin: admin as unknown as Admin, settle, pending };
}

function setUp() {
  let now = 0;
  const { admin, settle, pending } = fakeAdmin();
  const probe = new BrokerProbe(admin, {
    brokers: 'b:9092',
    intervalMs: 1_000,
    timeoutMs: 5_000,
    now: () => now,
  });
  return { probe, settle, pending, advance: (ms: number) => (now += ms) };
}

describe(BrokerProbe.name, () => {
  it('reports the cause of a failed check, and nothing once a check succeeds again', async () => {
    const { probe, settle } = setUp();
    probe.check();
    await settle();
    expect(probe.unreachable).toBeUndefined();
    probe.check();
    await settle(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'));
    expect(probe.unreachable).toMatch(/ECONNREFUSED/);
    probe.check();
    await settle();
    expect(probe.unreachable).toBeUndefined();
  });

  it('counts a check that has not answered within the timeout as unreachable', async () => {
    const { probe, settle, pending, advance } = setUp();
    probe.check();
    advance(4_999);
    probe.check();
    await flush();
    expect(probe.unreachable).toBeUndefined();
    expect(pending).toHaveLength(1); // one check at a time
    advance(1);
    probe.check();
    expect(probe.unreachable).toMatch(/no answer within 5000 ms/);
    await settle();
    expect(probe.unreachable).toBeUndefined();
  });
});
