import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) this summary reads. */
interface CpuProfile {
  nodes: Array<{ id: number; hitCount?: number; callFrame: { functionName: string; url: string } }>;
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
 * Sums every `.cpuprofile` in `dir` and lists where the busy time went: the top `top` packages
 * (a node_modules package, mailbridge's own code, Node itself, or V8's garbage collector and
 * compiler) and the top functions, each as milliseconds and share of all busy samples.
 */
export function profileSummary(dir: string, top = 20): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
    for (const node of profile.nodes) {
      const { functionName, url } = node.callFrame;
      if (!node.hitCount || functionName === IDLE) continue;
      const ms = node.hitCount * msPerSample;
      busyMs += ms;
      add(byPackage, packageOf(functionName, url), ms);
      add(byFunction, `${functionName || '(anonymous)'} ${where(url)}`, ms);
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
  ].join('\n');
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
