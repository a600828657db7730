import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface HeapNode {
  selfSize: number;
  callFrame: { functionName: string };
  children: HeapNode[];
}

/** Bytes the profile gives each function, summed over its nodes. */
function bytesByFunction(head: HeapNode): Map<string, number> {
  const bytes = new Map<string, number>();
  const visit = (node: HeapNode) => {
    const name = node.callFrame.functionName;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(head);
  return bytes;
}

describe('alloc-sampler (preloaded by --alloc-profile and --survivor-profile)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mailbridge-alloc-sampler-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes, at exit, what was allocated over the run, objects already freed included', () => {
    const out = join(dir, 'user.mailbridge.r1.heapprofile');
    // 200,000 objects of at least 16 bytes (3.2 MB), all freed and collected before the exit.
    const program = `
      function allocateMany() {
        let kept = [];
        for (let i = 0; i < 200000; i++) kept.push({ i, at: i * 2 });
        kept = null;
      }
      allocateMany();
      gc();
      setTimeout(() => process.exit(0), 10);`;
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--require', join(__dirname, 'alloc-sampler.ts'), '-e', program],
      { env: { ...process.env, BENCH_ALLOC_PROFILE: out }, encoding: 'utf8' },
    );
    expect(run.stderr).not.toContain('alloc-sampler');
    expect(run.status).toBe(0);
    const profile = JSON.parse(readFileSync(out, 'utf8')) as { head: HeapNode };
    // A sampled estimate: well above what a profile of live objects would show (nothing).
    expect(bytesByFunction(profile.head).get('allocateMany')).toBeGreaterThan(1_500_000);
  });

  it('counts, with BENCH_ALLOC_KEEP=survived, only what outlived a scavenge', () => {
    // Two functions allocate 200,000 objects each (3.2 MB or more). What dropMany makes is
    // garbage the moment the next one is made, so no scavenge finds it alive; what keepMany makes
    // is held through two scavenges (so promoted) and a full collection.
    const program = `
      function dropMany() {
        for (let i = 0; i < 200000; i++) globalThis.last = { i, at: i * 2 };
      }
      function keepMany() {
        const kept = [];
        for (let i = 0; i < 200000; i++) kept.push({ i, at: i * 2 });
        return kept;
      }
      dropMany();
      gc({ type: 'minor' });
      const held = keepMany();
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      gc();
      setTimeout(() => process.exit(held.length === 200000 ? 0 : 1), 10);`;
    const profiled = (keep: string) => {
      const out = join(dir, `${keep}.heapprofile`);
      const run = spawnSync(
        process.execPath,
        ['--expose-gc', '--require', join(__dirname, 'alloc-sampler.ts'), '-e', program],
        {
          env: { ...process.env, BENCH_ALLOC_PROFILE: out, BENCH_ALLOC_KEEP: keep },
          encoding: 'utf8',
        },
      );
      expect(run.stderr).not.toContain('alloc-sampler');
      expect(run.status).toBe(0);
      return bytesByFunction((JSON.parse(readFileSync(out, 'utf8')) as { head: HeapNode }).head);
    };
    const survived = profiled('survived');
    expect(survived.get('keepMany')).toBeGreaterThan(1_500_000);
    expect(survived.get('dropMany') ?? 0).toBeLessThan(300_000);
    // dropMany's objects were made (not optimised away): counted when every allocation is.
    expect(profiled('allocated').get('dropMany')).toBeGreaterThan(1_500_000);
  });

  it('refuses a BENCH_ALLOC_KEEP it does not know, rather than count the wrong bytes', () => {
    const run = spawnSync(
      process.execPath,
      ['--require', join(__dirname, 'alloc-sampler.ts'), '-e', 'process.exit(0)'],
      {
        env: {
          ...process.env,
          BENCH_ALLOC_PROFILE: join(dir, 'x.heapprofile'),
          BENCH_ALLOC_KEEP: 'promoted',
        },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('BENCH_ALLOC_KEEP must be allocated or survived, not promoted');
  });

  it('does nothing without BENCH_ALLOC_PROFILE', () => {
    const run = spawnSync(
      process.execPath,
      ['--require', join(__dirname, 'alloc-sampler.ts'), '-e', 'process.exit(0)'],
      { env: { ...process.env, BENCH_ALLOC_PROFILE: '' }, encoding: 'utf8', cwd: dir },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
