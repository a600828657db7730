import { MockAgent } from 'undici';
import { FakeClock, settle } from '../../test/support/fake-clock';
import { seededRandom } from '../../test/support/seeded-random';
import type { VendorConfig } from '../config/app-config';
import { StoppingError } from '../email-api/vendor.errors';
import { VendorClient } from '../email-api/vendor.client';
import type { VendorEndpointName } from '../email-api/vendor.observer';
import { paceOf, UNPACED, type BudgetStore } from './budget.store';
import { MemoryBudgetStore } from './memory-budget.store';
import { SharedRequestBudget, type EndpointBudget } from './shared-request-budget';

const ONE_A_SECOND = paceOf({ count: 60, periodMs: 60_000 }, 1, 0);

function endpoints(contacts = ONE_A_SECOND): Record<VendorEndpointName, EndpointBudget> {
  return {
    contacts: { key: 'budget:contacts:abc', pace: contacts },
    relay: { key: 'budget:relay:def', pace: UNPACED },
  };
}

describe(SharedRequestBudget.name, () => {
  let clock: FakeClock;
  let store: MemoryBudgetStore;
  let waits: Array<[string, number]>;
  let shrinks: string[];
  const replica = (random: () => number = () => 0, on: BudgetStore = store) =>
    new SharedRequestBudget(endpoints(), on, {
      random,
      sleep: (ms) => clock.sleep(ms),
      observer: {
        budgetWaited: (endpoint, seconds) => waits.push([endpoint, seconds]),
        budgetShrunk: (endpoint) => shrinks.push(endpoint),
      },
    });
  /** Records when each of `takes` resolved, on the fake clock, by its label. */
  const timesOf = (takes: Array<[string, Promise<void>]>) => {
    const granted: Array<[string, number]> = [];
    for (const [label, take] of takes) void take.then(() => granted.push([label, clock.now()]));
    return granted;
  };

  beforeEach(() => {
    clock = new FakeClock();
    store = new MemoryBudgetStore(() => clock.now());
    waits = [];
    shrinks = [];
  });

  it("serves one replica's requests in the order they asked, one per interval", async () => {
    const budget = replica();
    const t0 = clock.now();
    const granted = timesOf(['a', 'b', 'c'].map((l) => [l, budget.take('contacts')]));

    await clock.advance(2_500);

    expect(granted).toEqual([
      ['a', t0],
      ['b', t0 + 1_000],
      ['c', t0 + 2_000],
    ]);
    // Two of them waited (the first went at once), for one and two seconds.
    expect(waits).toEqual([
      ['contacts', expect.any(Number)],
      ['contacts', expect.any(Number)],
    ]);
  });

  it('shares the tokens fairly between two replicas that both keep asking', async () => {
    const a = replica(seededRandom(1));
    const b = replica(seededRandom(2));
    const granted = timesOf(
      Array.from({ length: 30 }, (): Array<[string, Promise<void>]> => [
        ['a', a.take('contacts')],
        ['b', b.take('contacts')],
      ]).flat(),
    );

    await clock.advance(30_000);

    const first = granted.slice(0, 30);
    expect(first.filter(([l]) => l === 'a').length).toBeGreaterThanOrEqual(10);
    expect(first.filter(([l]) => l === 'b').length).toBeGreaterThanOrEqual(10);
    // Shared, not doubled: still one token a second between them.
    for (let i = 1; i < first.length; i++) {
      expect(first[i][1] - first[i - 1][1]).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('holds every replica back after a shrink, on an endpoint without a pace too', async () => {
    const a = replica();
    const b = replica();
    const t0 = clock.now();
    a.shrink('relay', 4_000);
    await settle();
    const granted = timesOf([['b', b.take('relay')]]);

    await clock.advance(5_000);

    expect(granted).toEqual([['b', t0 + 4_000]]);
    expect(shrinks).toEqual(['relay']);
  });

  it('ends every wait when the service stops, and still lets a token granted at once go', async () => {
    const budget = replica();
    await budget.take('contacts');
    const waiting = budget.take('contacts');
    const queued = budget.take('contacts');

    budget.close();

    await expect(waiting).rejects.toBeInstanceOf(StoppingError);
    await expect(queued).rejects.toBeInstanceOf(StoppingError);
    await expect(budget.take('relay')).resolves.toBeUndefined();
  });

  it('waits for a store that does not answer, until the service stops', async () => {
    const silent: BudgetStore = {
      take: () => new Promise<number>(() => undefined),
      shrink: () => Promise.resolve(false),
    };
    const budget = replica(() => 0, silent);
    let settled = false;
    const take = budget.take('contacts').finally(() => (settled = true));
    await clock.advance(60_000);
    expect(settled).toBe(false);

    budget.close();

    await expect(take).rejects.toBeInstanceOf(StoppingError);
  });

  it('waits and asks again when the store answers with an error, rather than failing the request', async () => {
    let failures = 1;
    const flaky: BudgetStore = {
      take: (key, pace) =>
        failures-- > 0 ? Promise.reject(new Error('READONLY')) : store.take(key, pace),
      shrink: (key, pace, ms) => store.shrink(key, pace, ms),
    };
    const budget = replica(() => 0, flaky);
    const t0 = clock.now();
    const granted = timesOf([['a', budget.take('contacts')]]);

    await clock.advance(1_500);

    expect(granted).toEqual([['a', t0 + 1_000]]);
  });

  it("does not add the budget's hold to the retry's own wait for the same Retry-After", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const writes: number[] = [];
    const contacts = agent.get('https://api.vendor.test');
    contacts.intercept({ path: '/v1/contacts', method: 'POST' }).reply(() => {
      writes.push(clock.now());
      return { statusCode: 429, data: {}, responseOptions: { headers: { 'retry-after': '5' } } };
    });
    contacts.intercept({ path: '/v1/contacts', method: 'POST' }).reply(() => {
      writes.push(clock.now());
      return { statusCode: 200, data: { id: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f' } };
    });
    const client = new VendorClient(vendorConfig(), {
      dispatcher: agent,
      random: () => 0,
      now: () => clock.now(),
      sleep: (ms) => clock.sleep(ms),
      logger: { log: () => undefined, warn: () => undefined },
      budget: replica(),
    });
    let created = false;
    const creating = client.createContactList({ name: 'Newsletter' }).then(() => (created = true));

    for (let i = 0; i < 200 && !created; i++) await clock.advance(100);
    await creating;

    expect(writes).toHaveLength(2);
    // Five seconds after the 429 (the hold and the retry's wait end together), not ten.
    expect(writes[1] - writes[0]).toBeGreaterThanOrEqual(5_000);
    expect(writes[1] - writes[0]).toBeLessThan(6_000);
    await client.close();
    await agent.close();
  });
});

function vendorConfig(): VendorConfig {
  return {
    relayBaseUrl: 'https://relay.vendor.test/relay/v1',
    baseUrl: 'https://api.vendor.test/v1',
    contactsPath: '/contacts',
    relayAccessToken: 'relay-secret',
    relayTokenForm: 'bare',
    mergeEscapesHtml: true,
    apiKey: 'contacts-secret',
    allowInsecureHosts: [],
    connectTimeoutMs: 1000,
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    retryMaxAttempts: 4,
    retryBaseMs: 100,
    retryCapMs: 1000,
    retryAfterMaxMs: 60_000,
    retryAmbiguous: true,
    maxRecipientsPerRequest: 1000,
    maxBodyBytes: 5_000_000,
    poolConnections: 4,
    chunkConcurrency: 1,
  };
}
