import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThroughputResult } from './result-types';
import { allocationSummary, eventsHandled, profileSummary } from './profile-summary';

const DIST = 'file:///app/dist';
const MODULES = 'file:///app/node_modules';

interface Frame {
  name: string;
  url: string;
  hits?: number;
  children?: Frame[];
}

/** A `.cpuprofile` of the given call tree, at 1 ms per sample. */
function cpuProfile(root: Frame[]): object {
  const nodes: object[] = [];
  let samples = 0;
  let next = 1;
  const visit = (frame: Frame): number => {
    const id = next++;
    const node = {
      id,
      hitCount: frame.hits ?? 0,
      callFrame: { functionName: frame.name, url: frame.url },
      children: [] as number[],
    };
    nodes.push(node);
    samples += frame.hits ?? 0;
    node.children = (frame.children ?? []).map(visit);
    return id;
  };
  visit({ name: '(root)', url: '', children: root });
  return { nodes, startTime: 0, endTime: samples * 1000, samples: new Array<number>(samples) };
}

describe('profileSummary', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-profile-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, root: Frame[]) =>
    writeFileSync(join(dir, name), JSON.stringify(cpuProfile(root)));

  it('counts each sample for the stage of its nearest frame that names one, per workload', () => {
    write('user.mailbridge.r1.cpuprofile', [
      { name: '(garbage collector)', url: '', hits: 30 },
      { name: '(idle)', url: '', hits: 500 }, // waiting: not counted at all
      {
        name: 'onBatch',
        url: `${MODULES}/kafkajs/src/consumer/runner.js`,
        hits: 5,
        children: [
          {
            name: 'handle',
            url: `${DIST}/inbound/record.handler.js`,
            hits: 5,
            children: [
              {
                name: 'eventOf',
                url: `${DIST}/inbound/event.parser.js`,
                hits: 4,
                // ajv's compiled code has no file: it counts where it was called from.
                children: [{ name: 'validate10', url: '', hits: 16 }],
              },
              {
                name: 'claim',
                url: `${DIST}/idempotency/redis-idempotency.store.js`,
                children: [
                  {
                    name: 'write',
                    url: `${MODULES}/ioredis/built/Redis.js`,
                    children: [{ name: 'writeUtf8String', url: '', hits: 10 }],
                  },
                ],
              },
            ],
          },
        ],
      },
      {
        name: 'compileFunction',
        url: 'node:internal/modules/cjs/loader',
        hits: 20,
      },
      { name: 'somewhere', url: 'file:///elsewhere.js', hits: 10 },
    ]);
    write('order.mailbridge.r1.cpuprofile', [
      { name: 'LOG', url: `${MODULES}/pino/lib/tools.js`, hits: 3 },
      { name: 'sendCampaign', url: `${DIST}/email-api/vendor.client.js`, hits: 1 },
    ]);

    const summary = profileSummary(dir);
    const stages = summary.slice(summary.indexOf('| stage |'));
    const rows = Object.fromEntries(
      stages
        .split('\n')
        .slice(2)
        .filter((line) => line.startsWith('|'))
        .map((line) => {
          const [stage, order, user] = line
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim());
          return [stage, { order, user }];
        }),
    );
    expect(stages.split('\n')[0]).toBe('| stage | order | user |');
    // 100 busy samples in user's profile: the idle ones are not among them.
    expect(rows).toEqual({
      '(garbage collector)': { order: '0.0 %', user: '30.0 %' },
      'parse and validate': { order: '0.0 %', user: '20.0 %' },
      'module loading (start)': { order: '0.0 %', user: '20.0 %' },
      'Redis: claims, outcomes': { order: '0.0 %', user: '10.0 %' },
      'kafkajs consume': { order: '0.0 %', user: '5.0 %' },
      'transport: window, offsets': { order: '0.0 %', user: '5.0 %' },
      other: { order: '0.0 %', user: '10.0 %' },
      logging: { order: '75.0 %', user: '0.0 %' },
      'vendor: batching, HTTP': { order: '25.0 %', user: '0.0 %' },
    });
  });

  it("sets each phase's CPU per 1,000 events by stage beside the others' when asked", () => {
    const floors = join(dir, 'floors');
    mkdirSync(floors);
    // The floors run the benchmark's own compiled copy of src/: it counts as dist/ does.
    const benchSrc = 'file:///app/.cache/bench-dist/src';
    writeFileSync(
      join(floors, 'user.pipeline-floor.r1.cpuprofile'),
      JSON.stringify(
        cpuProfile([
          { name: '(garbage collector)', url: '', hits: 10 },
          { name: 'eventOf', url: `${benchSrc}/inbound/event.parser.js`, hits: 20 },
          { name: 'compileFunction', url: 'node:internal/modules/cjs/loader', hits: 50 },
        ]),
      ),
    );
    write('user.mailbridge.r1.cpuprofile', [
      { name: '(garbage collector)', url: '', hits: 30 },
      { name: 'eventOf', url: `${DIST}/inbound/event.parser.js`, hits: 20 },
      { name: 'LOG', url: `${MODULES}/pino/lib/tools.js`, hits: 10 },
    ]);
    write('user.mailbridge.r2.cpuprofile', [{ name: '(garbage collector)', url: '', hits: 10 }]);
    // Not a sign-up profile: not in the sign-up column, but in the orders' own table.
    write('order.mailbridge.r1.cpuprofile', [
      { name: 'LOG', url: `${MODULES}/pino/lib/tools.js`, hits: 99 },
    ]);

    const summary = profileSummary(dir, [
      { phase: 'pipeline-floor', dir: floors, workload: 'user', events: 10_000 },
      { phase: 'mailbridge', dir, workload: 'user', events: 20_000 },
      { phase: 'mailbridge', dir, workload: 'order', events: 3_000 },
    ]);
    // 1 ms per sample: the floor's 20 ms of parsing over 10,000 events is 2.0 ms per 1,000;
    // mailbridge's 40 ms of collection over its two runs' 20,000 is 2.0. Start-up is left out.
    expect(rowsOf(summary, '| user: stage | pipeline-floor | mailbridge |')).toEqual({
      '(garbage collector)': ['1.0', '2.0'],
      'parse and validate': ['2.0', '1.0'],
      logging: ['0.0', '0.5'],
      'in all': ['3.0', '3.5'],
    });
    expect(rowsOf(summary, '| order: stage | mailbridge |')).toEqual({
      logging: ['33.0'],
      'in all': ['33.0'],
    });
    // The stage table of shares above it is still mailbridge's alone.
    expect(summary).toContain('| stage | order | user |');
  });

  it('adds no comparison unless asked', () => {
    write('user.mailbridge.r1.cpuprofile', [{ name: '(garbage collector)', url: '', hits: 3 }]);
    expect(profileSummary(dir)).not.toContain('CPU ms per 1,000 events by stage');
  });

  it('keeps the package and function tables over all workloads', () => {
    write('user.mailbridge.r1.cpuprofile', [
      { name: '(garbage collector)', url: '', hits: 3 },
      { name: 'eventOf', url: `${DIST}/inbound/event.parser.js`, hits: 1 },
    ]);
    const summary = profileSummary(dir);
    expect(summary).toContain('1 profile(s), 4 ms busy');
    expect(summary).toContain('| (garbage collector) | 3 | 75.0 % |');
    expect(summary).toContain('| mailbridge | 1 | 25.0 % |');
    expect(summary).toContain('| eventOf (dist/inbound/event.parser.js) | 1 | 25.0 % |');
  });
});

interface HeapFrame {
  name: string;
  url: string;
  bytes?: number;
  children?: HeapFrame[];
}

/** A `.heapprofile` of the given call tree (the sampling heap profiler's nested form). */
function heapProfile(root: HeapFrame[]): object {
  let next = 1;
  const visit = (frame: HeapFrame): object => ({
    id: next++,
    selfSize: frame.bytes ?? 0,
    callFrame: { functionName: frame.name, url: frame.url },
    children: (frame.children ?? []).map(visit),
  });
  return { head: visit({ name: '(root)', url: '', children: root }), samples: [] };
}

/** The rows of the summary's table that starts with `header`, by their first cell. */
function rowsOf(summary: string, header: string): Record<string, string[]> {
  const table = summary.slice(summary.indexOf(header)).split('\n\n')[0];
  return Object.fromEntries(
    table
      .split('\n')
      .slice(2)
      .filter((line) => line.startsWith('|'))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      )
      .map(([first, ...rest]) => [first, rest]),
  );
}

describe('allocationSummary', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-alloc-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, root: HeapFrame[]) =>
    writeFileSync(join(dir, name), JSON.stringify(heapProfile(root)));

  beforeEach(() => {
    // 4 MB for user in two repetitions' files, 1 MB for order.
    write('user.mailbridge.r1.heapprofile', [
      {
        name: 'handle',
        url: `${DIST}/inbound/record.handler.js`,
        bytes: 200_000,
        children: [
          // ajv's compiled code has no file: it counts where it was called from.
          { name: 'validate10', url: '', bytes: 800_000 },
          {
            name: 'LOG',
            url: `${MODULES}/pino/lib/tools.js`,
            bytes: 1_000_000,
          },
        ],
      },
    ]);
    write('user.mailbridge.r2.heapprofile', [
      { name: 'toWritable', url: `${MODULES}/ioredis/built/Command.js`, bytes: 1_500_000 },
      { name: 'compileFunction', url: 'node:internal/modules/cjs/loader', bytes: 500_000 },
    ]);
    write('order.mailbridge.r1.heapprofile', [
      { name: 'LOG', url: `${MODULES}/pino/lib/tools.js`, bytes: 1_000_000 },
    ]);
    // A CPU profile beside them is not read.
    writeFileSync(join(dir, 'user.mailbridge.r1.cpuprofile'), '{}');
  });

  it('gives each workload its bytes in all and per event handled', () => {
    const summary = allocationSummary(dir, { user: 2_000, order: 500 });
    expect(summary).toContain('3 profile(s), 5.0 MB allocated in all');
    expect(rowsOf(summary, '| workload |')).toEqual({
      order: ['500', '1.0', '2.00'],
      user: ['2,000', '4.0', '2.00'],
    });
  });

  it('counts bytes per package and function over all workloads', () => {
    const summary = allocationSummary(dir, { user: 2_000, order: 500 });
    expect(rowsOf(summary, '| package |')).toEqual({
      pino: ['2.0', '40.0 %'],
      ioredis: ['1.5', '30.0 %'],
      // validate10 has no file: native code, like the CPU profile's.
      '(native)': ['0.8', '16.0 %'],
      node: ['0.5', '10.0 %'],
      mailbridge: ['0.2', '4.0 %'],
    });
    expect(rowsOf(summary, '| function |')['LOG (pino/lib/tools.js)']).toEqual(['2.0', '40.0 %']);
  });

  it("gives each stage's bytes per event of its workload, a library's where it was called", () => {
    const rows = rowsOf(allocationSummary(dir, { user: 2_000, order: 500 }), '| stage |');
    expect(rows).toEqual({
      logging: ['2.00', '0.50'],
      'Redis: claims, outcomes': ['0.00', '0.75'],
      // handle's own 0.2 MB and ajv's 0.8 MB called from it.
      'transport: window, offsets': ['0.00', '0.50'],
      'module loading (start)': ['0.00', '0.25'],
    });
    expect(allocationSummary(dir, {}).split('| stage |')[1].split('\n')[0]).toBe(' order | user |');
  });

  it('leaves per-event figures out for a workload whose count is not known', () => {
    const rows = rowsOf(allocationSummary(dir, { user: 2_000 }), '| workload |');
    expect(rows.order).toEqual(['–', '1.0', '–']);
  });
  it('says, for a --survivor-profile, that its bytes are those that outlived a scavenge', () => {
    const summary = allocationSummary(dir, { user: 2_000, order: 500 }, 'survived');
    expect(summary.split('\n')[0]).toBe(
      '# Bytes that outlived a scavenge in the mailbridge phases',
    );
    expect(summary).toContain('3 profile(s), 5.0 MB survived in all');
    expect(summary).toContain('| workload | events | MB survived | KB per event |');
    expect(summary).toContain('KB survived per event by pipeline stage');
    expect(summary).not.toMatch(/(MB|KB) allocated/);
    // The same tally: only the words change.
    expect(rowsOf(summary, '| workload |').user).toEqual(['2,000', '4.0', '2.00']);
  });
});

describe('eventsHandled', () => {
  const result = (workload: string, phase: string, events: number) =>
    ({ workload, phase, events }) as unknown as ThroughputResult;
  const results = [
    result('user', 'mailbridge', 100_000),
    result('user', 'pipeline-floor', 98_000),
    result('user', 'mailbridge', 99_000),
    result('order', 'mailbridge', 20_000),
  ];

  it("sums mailbridge's throughput phases per workload, the other phases left out", () => {
    expect(eventsHandled(results)).toEqual({ user: 199_000, order: 20_000 });
  });

  it("sums another phase's when told which", () => {
    expect(eventsHandled(results, 'pipeline-floor')).toEqual({ user: 98_000 });
  });
});
