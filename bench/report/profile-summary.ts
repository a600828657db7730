import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) this summary reads. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    hitCount?: number;
    children?: number[];
    callFrame: { functionName: string; url: string };
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
}

interface Share {
  name: string;
  ms: number;
}

/** V8's pseudo-frames: `(idle)` is waiting, not work; the others are work not in any script. */
const IDLE = '(idle)';

/**
 * The steps of the pipeline, by the file a frame's code is in. A sample counts for the stage of
 * its nearest frame (from the one running upward) whose file names one, so a library's time
 * counts where the pipeline called it: JSON Schema code that ajv compiled has no file and counts
 * for parsing, Node's socket writes for whoever wrote. The first stage a file matches wins.
 */
const STAGES: ReadonlyArray<readonly [stage: string, file: RegExp]> = [
  ['logging', /\/node_modules\/(pino|sonic-boom)\/|\/dist\/logging\/|\/dist\/dispatch\/event-log/],
  ['metrics', /\/node_modules\/prom-client\/|\/dist\/metrics\//],
  ['tracing', /\/node_modules\/@opentelemetry\/|\/dist\/tracing\//],
  [
    'parse and validate',
    /\/node_modules\/(ajv|validator|libphonenumber-js)\/|\/dist\/contracts\/|\/dist\/inbound\/(event\.parser|event\.validator|json-limits|cloud-event)/,
  ],
  [
    'Redis: claims, outcomes',
    /\/node_modules\/(ioredis|@ioredis\/[^/]+|redis-parser|denque)\/|\/dist\/(idempotency|cluster)\//,
  ],
  ['vendor: batching, HTTP', /\/node_modules\/undici\/|\/dist\/(delivery|email-api)\//],
  ['results: build, publish', /\/dist\/outbound\//],
  [
    'kafkajs produce',
    /\/kafkajs\/src\/(producer|protocol\/requests\/produce|protocol\/encoder|protocol\/recordBatch\/(crc32C|header|record\/v0\/index|v0\/index))/,
  ],
  [
    'kafkajs consume',
    /\/kafkajs\/src\/(consumer|protocol\/requests\/fetch|protocol\/decoder|protocol\/recordBatch\/(record\/v0\/decoder|v0\/decoder))/,
  ],
  ['kafkajs: network, other', /\/node_modules\/kafkajs\//],
  ['dispatch, templates', /\/dist\/(dispatch|templates)\//],
  ['transport: window, offsets', /\/dist\/(inbound|kafka)\//],
  ['Nest', /\/node_modules\/(@nestjs\/[^/]+|rxjs)\//],
  ['module loading (start)', /^node:internal\/modules\//],
];

/**
 * Sums every `.cpuprofile` in `dir` and lists where the busy time went: the top `top` packages
 * (a node_modules package, mailbridge's own code, Node itself, or V8's garbage collector and
 * compiler) and the top functions, each as milliseconds and share of all busy samples.
 */
export function profileSummary(dir: string, top = 20): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  /** Per workload (a file's name up to its first dot: `user`, `order`, `latency`), per stage. */
  const byStage = new Map<string, Map<string, number>>();
  let busyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
    const workload = file.split('.')[0];
    const stages = byStage.get(workload) ?? new Map<string, number>();
    byStage.set(workload, stages);
    const stageOf = stagesOf(profile);
    for (const node of profile.nodes) {
      const { functionName, url } = node.callFrame;
      if (!node.hitCount || functionName === IDLE) continue;
      const ms = node.hitCount * msPerSample;
      busyMs += ms;
      add(byPackage, packageOf(functionName, url), ms);
      add(byFunction, `${functionName || '(anonymous)'} ${where(url)}`, ms);
      add(stages, stageOf(node.id), ms);
    }
  }
  const table = (title: string, shares: Share[]) => [
    `| ${title} | busy ms | share |`,
    '|---|---:|---:|',
    ...shares.map(
      (s) => `| ${s.name} | ${s.ms.toFixed(0)} | ${((100 * s.ms) / busyMs).toFixed(1)} % |`,
    ),
  ];
  return [
    `# CPU profile of the mailbridge phases`,
    '',
    `${files.length} profile(s), ${busyMs.toFixed(0)} ms busy (idle excluded), from ${dir}.`,
    '',
    ...table('package', topOf(byPackage, top)),
    '',
    ...table('function', topOf(byFunction, top)),
    '',
    ...stageTable(byStage),
  ].join('\n');
}

/** Each workload's busy time by pipeline stage, as shares of that workload's busy time. */
function stageTable(byStage: Map<string, Map<string, number>>): string[] {
  const workloads = [...byStage.keys()].sort();
  const totals = new Map<string, number>();
  for (const stages of byStage.values()) {
    for (const [stage, ms] of stages) add(totals, stage, ms);
  }
  const busy = (stages: Map<string, number>) => [...stages.values()].reduce((a, b) => a + b, 0);
  const share = (ms: number | undefined, of: number) =>
    of === 0 ? '–' : `${((100 * (ms ?? 0)) / of).toFixed(1)} %`;
  return [
    'By pipeline stage: each sample counts for the nearest frame, from the running one upward, whose',
    "file belongs to a stage (`STAGES` in bench/report/profile-summary.ts); V8's own work counts apart.",
    '',
    `| stage | ${workloads.join(' | ')} |`,
    `|---|${workloads.map(() => '---:|').join('')}`,
    ...topOf(totals, totals.size).map(
      ({ name }) =>
        `| ${name} | ${workloads.map((w) => share(byStage.get(w)!.get(name), busy(byStage.get(w)!))).join(' | ')} |`,
    ),
    '',
  ];
}

/**
 * The stage of a profile's node: V8's pseudo-frames (`(garbage collector)`, `(program)`, `(root)`)
 * are their own; other frames take the first stage their file matches, or their caller's; a
 * stack that no stage names up to the root is `other`.
 */
function stagesOf(profile: CpuProfile): (id: number) => string {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const callers = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) callers.set(child, node.id);
  }
  const known = new Map<number, string>();
  const stageOf = (id: number): string => {
    const cached = known.get(id);
    if (cached !== undefined) return cached;
    const { functionName, url } = nodes.get(id)!.callFrame;
    const pseudo = url === '' && functionName.startsWith('(') && functionName !== '(anonymous)';
    const caller = callers.get(id);
    const stage = pseudo
      ? functionName
      : (STAGES.find(([, file]) => url !== '' && file.test(url))?.[0] ??
        (caller === undefined || callers.get(caller) === undefined ? 'other' : stageOf(caller)));
    known.set(id, stage);
    return stage;
  };
  return stageOf;
}

function add(into: Map<string, number>, key: string, ms: number): void {
  into.set(key, (into.get(key) ?? 0) + ms);
}

function topOf(shares: Map<string, number>, top: number): Share[] {
  return [...shares]
    .map(([name, ms]) => ({ name, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

/** `kafkajs`, `@nestjs/core`, `mailbridge`, `node`, or V8's own `(garbage collector)` etc. */
function packageOf(functionName: string, url: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules === -1) return 'mailbridge';
  const [scope, name] = url.slice(modules + '/node_modules/'.length).split('/');
  return scope.startsWith('@') ? `${scope}/${name}` : scope;
}

/** The file a function is in, short: `kafkajs/src/consumer/runner.js`, `dist/src/…`. */
function where(url: string): string {
  if (url === '') return '';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return `(${url.slice(modules + '/node_modules/'.length)})`;
  const dist = url.indexOf('/dist/');
  return `(${dist === -1 ? url.replace(/^file:\/\//, '') : url.slice(dist + 1)})`;
}
