import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileSummary } from './profile-summary';

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
