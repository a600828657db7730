import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HeapProfileKind } from '../config/bench-options';
import type { ThroughputResult } from './result-types';

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

/** A package's, function's or stage's weight: busy milliseconds, or bytes allocated. */
interface Share {
  name: string;
  weight: number;
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

/** The parts of a V8 `.heapprofile` (the sampling heap profiler's) this summary reads. */
interface HeapProfile {
  head: HeapNode;
}

interface HeapNode {
  id: number;
  selfSize: number;
  callFrame: { functionName: string; url: string };
  children: HeapNode[];
}

/** A profile's call tree with one weight per node: busy milliseconds, or bytes allocated. */
interface WeightedNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
  weight: number;
}

/** Every profile's weight summed by package, by function, and per workload by stage. */
interface Tally {
  files: number;
  total: number;
  byPackage: Map<string, number>;
  byFunction: Map<string, number>;
  /** Per workload (a file's name up to its first dot: `user`, `order`, `latency`), per stage. */
  byStage: Map<string, Map<string, number>>;
  /** Per workload, in all. */
  byWorkload: Map<string, number>;
}

/** One column of the stage comparison: a phase's CPU profiles and the events they handled. */
export interface StageColumn {
  phase: string;
  /** The folder of the phase's profiles, named `<workload>.<phase>.r<N>.cpuprofile`. */
  dir: string;
  workload: string;
  events: number;
}

/** The stage that a comparison leaves out: the process's start, which no throughput charges. */
const START = 'module loading (start)';

/**
 * Sums every `.cpuprofile` in `dir` and lists where the busy time went: the top `top` packages
 * (a node_modules package, mailbridge's own code, Node itself, or V8's garbage collector and
 * compiler) and the top functions, each as milliseconds and share of all busy samples. With
 * `compare`, it adds each column's CPU per 1,000 events by stage, side by side: the floors'
 * beside mailbridge's shows which stages its machinery makes dearer.
 */
export function profileSummary(
  dir: string,
  compare: readonly StageColumn[] = [],
  top = 20,
): string {
  const tally = tallyOf(dir, '.cpuprofile', cpuWeights);
  const table = (title: string, shares: Share[]) =>
    shareTable(title, 'busy ms', shares, tally.total, (ms) => ms.toFixed(0));
  return [
    `# CPU profile of the mailbridge phases`,
    '',
    `${tally.files} profile(s), ${tally.total.toFixed(0)} ms busy (idle excluded), from ${dir}.`,
    '',
    ...table('package', topOf(tally.byPackage, top)),
    '',
    ...table('function', topOf(tally.byFunction, top)),
    '',
    'By pipeline stage: each sample counts for the nearest frame, from the running one upward, whose',
    "file belongs to a stage (`STAGES` in bench/report/profile-summary.ts); V8's own work counts apart.",
    '',
    ...stageTable(tally, (workload, stage) => {
      const stages = tally.byStage.get(workload)!;
      return percent(stages.get(stage) ?? 0, tally.byWorkload.get(workload)!);
    }),
    '',
    ...(compare.length > 0 ? [...stageComparison(compare), ''] : []),
  ].join('\n');
}

function cpuWeights(profile: CpuProfile): WeightedNode[] {
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  return profile.nodes.map((node) => ({
    ...node,
    weight: node.callFrame.functionName === IDLE ? 0 : (node.hitCount ?? 0) * msPerSample,
  }));
}

/**
 * CPU ms per 1,000 events by stage, a column per phase: its profiles' busy time over the events
 * its throughput runs handled, start-up left out (the throughput's CPU figure leaves it out
 * too). A profile samples the main thread only: the collector's helper threads are not in it.
 */
function stageComparison(columns: readonly StageColumn[]): string[] {
  const workloads = [...new Set(columns.map((c) => c.workload))];
  return [
    `CPU ms per 1,000 events by stage (${workloads.join(', ')}), each phase's profiles over the`,
    'events its throughput runs handled; start-up left out, as the CPU per 1,000 events of the',
    "results leaves it out. The floors do the same work with the project's code and none of its",
    "machinery (docs/benchmark.md): where mailbridge spends more in a stage, that is its machinery's",
    "cost. The profiler samples the main thread only, so the collector's helper threads are not",
    'counted.',
    ...workloads.flatMap((workload) => [
      '',
      ...stageTableOf(
        workload,
        columns.filter((c) => c.workload === workload),
      ),
    ]),
  ];
}

/** One workload's stage comparison: a row per stage, a column per phase. */
function stageTableOf(workload: string, columns: readonly StageColumn[]): string[] {
  const perThousand = columns.map(({ phase, dir, events }) => {
    const prefix = `${workload}.${phase}.`;
    const stages = existsSync(dir)
      ? tallyOf(dir, '.cpuprofile', cpuWeights, prefix).byStage.get(workload)
      : undefined;
    const costs = new Map<string, number>();
    for (const [stage, ms] of stages ?? []) {
      if (stage !== START) costs.set(stage, events ? (1000 * ms) / events : NaN);
    }
    return costs;
  });
  const last = perThousand.at(-1)!;
  const stages = [...new Set(perThousand.flatMap((m) => [...m.keys()]))].sort(
    (a, b) => (last.get(b) ?? 0) - (last.get(a) ?? 0),
  );
  const cell = (ms: number | undefined) => (ms === undefined ? '0.0' : ms.toFixed(1));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return [
    `| ${workload}: stage | ${columns.map((c) => c.phase).join(' | ')} |`,
    `|---|${columns.map(() => '---:|').join('')}`,
    ...stages.map(
      (stage) => `| ${stage} | ${perThousand.map((m) => cell(m.get(stage))).join(' | ')} |`,
    ),
    `| in all | ${perThousand.map((m) => cell(sum(m))).join(' | ')} |`,
  ];
}

/**
 * Sums every `.heapprofile` in `dir` (what `--alloc-profile` or `--survivor-profile` has V8's
 * sampling heap profiler write) and lists where the bytes were allocated: per workload in all
 * and per event where `events` gives the workload's count, then the top `top` packages and
 * functions, then each workload's bytes per event by pipeline stage. `kind` says which bytes the
 * profiles counted: all those `allocated` (freed objects included), or only those that
 * `survived` a scavenge. What the collector has to do follows from these bytes, so they show
 * where its share of the CPU profile comes from.
 */
export function allocationSummary(
  dir: string,
  events: Readonly<Record<string, number>>,
  kind: HeapProfileKind = 'allocated',
  top = 20,
): string {
  const tally = tallyOf(dir, '.heapprofile', (profile: HeapProfile) => {
    const nodes: WeightedNode[] = [];
    const visit = (node: HeapNode): number => {
      const flat: WeightedNode = { id: node.id, callFrame: node.callFrame, weight: node.selfSize };
      nodes.push(flat);
      flat.children = node.children.map(visit);
      return node.id;
    };
    visit(profile.head);
    return nodes;
  });
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const kbPerEvent = (bytes: number, workload: string) =>
    events[workload] ? (bytes / 1e3 / events[workload]).toFixed(2) : '–';
  const workloads = [...tally.byWorkload.keys()].sort();
  const table = (title: string, shares: Share[]) =>
    shareTable(title, 'MB', shares, tally.total, mb);
  const { title, counted, about } = HEAP_PROFILE_WORDING[kind];
  return [
    `# ${title}`,
    '',
    `${tally.files} profile(s), ${mb(tally.total)} MB ${counted} in all, from ${dir}.`,
    '',
    ...about,
    '',
    `| workload | events | MB ${counted} | KB per event |`,
    '|---|---:|---:|---:|',
    ...workloads.map((w) => {
      const bytes = tally.byWorkload.get(w)!;
      const count = events[w] ? events[w].toLocaleString('en-US') : '–';
      return `| ${w} | ${count} | ${mb(bytes)} | ${kbPerEvent(bytes, w)} |`;
    }),
    '',
    ...table('package', topOf(tally.byPackage, top)),
    '',
    ...table('function', topOf(tally.byFunction, top)),
    '',
    `KB ${counted} per event by pipeline stage: each sample counts for the nearest frame, from the`,
    'allocating one upward, whose file belongs to a stage (`STAGES` in',
    'bench/report/profile-summary.ts).',
    '',
    ...stageTable(tally, (workload, stage) =>
      kbPerEvent(tally.byStage.get(workload)!.get(stage) ?? 0, workload),
    ),
    '',
  ].join('\n');
}

const HEAP_PROFILE_WORDING: Record<
  HeapProfileKind,
  { title: string; counted: string; about: string[] }
> = {
  allocated: {
    title: 'Allocations of the mailbridge phases',
    counted: 'allocated',
    about: [
      "V8's sampling heap profiler, freed objects kept: the bytes allocated over each process's life,",
      'its start included (the `module loading (start)` stage), not the bytes alive at its end.',
    ],
  },
  survived: {
    title: 'Bytes that outlived a scavenge in the mailbridge phases',
    counted: 'survived',
    about: [
      "V8's sampling heap profiler, objects freed by a scavenge dropped and those freed by a full",
      'collection kept: the bytes each process allocated that lived through at least one collection',
      "of the young generation, which copied them (most then into old space). A scavenge's time is",
      'that copying, and what reaches old space sets off the full collections. Start included (the',
      '`module loading (start)` stage).',
    ],
  },
};

/**
 * The events a phase's throughput runs (mailbridge's unless told) handled, per workload, over
 * all repetitions: what their profiles are divided by. (The latency phase's count is not known
 * to the event: its warm-up's results are not collected.)
 */
export function eventsHandled(
  results: readonly ThroughputResult[],
  phase = 'mailbridge',
): Record<string, number> {
  const events: Record<string, number> = {};
  for (const r of results) {
    if (r.phase === phase) events[r.workload] = (events[r.workload] ?? 0) + r.events;
  }
  return events;
}

/** Reads every `suffix` file of `dir` (named `prefix…`) as a weighted call tree and sums it up. */
function tallyOf<P>(
  dir: string,
  suffix: string,
  nodesOf: (profile: P) => WeightedNode[],
  prefix = '',
): Tally {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(suffix));
  const tally: Tally = {
    files: files.length,
    total: 0,
    byPackage: new Map(),
    byFunction: new Map(),
    byStage: new Map(),
    byWorkload: new Map(),
  };
  for (const file of files) {
    const nodes = nodesOf(JSON.parse(readFileSync(join(dir, file), 'utf8')) as P);
    const workload = file.split('.')[0];
    const stages = tally.byStage.get(workload) ?? new Map<string, number>();
    tally.byStage.set(workload, stages);
    const stageOf = stagesOf(nodes);
    for (const node of nodes) {
      if (!node.weight) continue;
      const { functionName, url } = node.callFrame;
      tally.total += node.weight;
      add(tally.byWorkload, workload, node.weight);
      add(tally.byPackage, packageOf(functionName, url), node.weight);
      add(tally.byFunction, `${functionName || '(anonymous)'} ${where(url)}`, node.weight);
      add(stages, stageOf(node.id), node.weight);
    }
  }
  return tally;
}

/** A row per stage (the heaviest over all workloads first), a column per workload. */
function stageTable(tally: Tally, cell: (workload: string, stage: string) => string): string[] {
  const workloads = [...tally.byStage.keys()].sort();
  const totals = new Map<string, number>();
  for (const stages of tally.byStage.values()) {
    for (const [stage, weight] of stages) add(totals, stage, weight);
  }
  return [
    `| stage | ${workloads.join(' | ')} |`,
    `|---|${workloads.map(() => '---:|').join('')}`,
    ...topOf(totals, totals.size).map(
      ({ name }) => `| ${name} | ${workloads.map((w) => cell(w, name)).join(' | ')} |`,
    ),
  ];
}

/** The top shares, each with its weight (formatted) and its part of `total`. */
function shareTable(
  title: string,
  unit: string,
  shares: Share[],
  total: number,
  format: (weight: number) => string,
): string[] {
  return [
    `| ${title} | ${unit} | share |`,
    '|---|---:|---:|',
    ...shares.map((s) => `| ${s.name} | ${format(s.weight)} | ${percent(s.weight, total)} |`),
  ];
}

function percent(part: number, of: number): string {
  return of === 0 ? '–' : `${((100 * part) / of).toFixed(1)} %`;
}

/**
 * The stage of a profile's node: V8's pseudo-frames (`(garbage collector)`, `(program)`, `(root)`)
 * are their own; other frames take the first stage their file matches, or their caller's; a
 * stack that no stage names up to the root is `other`.
 */
function stagesOf(profileNodes: WeightedNode[]): (id: number) => string {
  const nodes = new Map(profileNodes.map((n) => [n.id, n]));
  const callers = new Map<number, number>();
  for (const node of profileNodes) {
    for (const child of node.children ?? []) callers.set(child, node.id);
  }
  const known = new Map<number, string>();
  const stageOf = (id: number): string => {
    const cached = known.get(id);
    if (cached !== undefined) return cached;
    const { functionName, url: file } = nodes.get(id)!.callFrame;
    // The floors run the project's code as the benchmark compiles it for itself: it counts for
    // the same stages as the service's `dist/`.
    const url = file.replace('/.cache/bench-dist/src/', '/dist/');
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

function add(into: Map<string, number>, key: string, weight: number): void {
  into.set(key, (into.get(key) ?? 0) + weight);
}

function topOf(shares: Map<string, number>, top: number): Share[] {
  return [...shares]
    .map(([name, weight]) => ({ name, weight }))
    .sort((a, b) => b.weight - a.weight)
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
