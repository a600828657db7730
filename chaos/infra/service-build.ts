import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface ServiceBuild {
  /** The `main.js` the instances run. */
  script: string;
  /** The last commit that touched the src/ it was built from; "+dirty" for an uncommitted tree. */
  srcCommit: string;
}

/**
 * The build a chaos invocation runs, fixed for its whole length: an instance restarted after a
 * kill must be the same build as the one it replaces, even if dist/ is rebuilt meanwhile.
 * Without a ref, a copy of dist/ (built from the working tree by `npm run chaos`). With one, that
 * commit's src/ built apart under .cache/, so a run can target committed code while the working
 * tree is being edited. Either way modules resolve from the repository's node_modules above.
 */
export function serviceBuild(root: string, ref: string | undefined, name: string): ServiceBuild {
  return ref === undefined ? snapshotDist(root, name) : buildRef(root, ref);
}

function snapshotDist(root: string, name: string): ServiceBuild {
  if (!existsSync(join(root, 'dist/main.js')))
    throw new Error('dist/main.js is missing: run `npm run build`');
  const target = join(root, '.cache/chaos', name);
  rmSync(target, { recursive: true, force: true });
  cpSync(join(root, 'dist'), join(target, 'dist'), { recursive: true });
  const sha = git(root, ['log', '-1', '--format=%h', '--', 'src']);
  const dirty = git(root, ['status', '--porcelain', '--', 'src']) !== '';
  return { script: join(target, 'dist/main.js'), srcCommit: dirty ? `${sha}+dirty` : sha };
}

function buildRef(root: string, ref: string): ServiceBuild {
  const sha = git(root, ['log', '-1', '--format=%h', ref, '--', 'src']);
  const dir = join(root, '.cache/chaos/build', sha);
  const script = join(dir, 'dist/main.js');
  if (!existsSync(script)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
    const archive = execFileSync('git', ['archive', ref, ...files], {
      cwd: root,
      maxBuffer: 1 << 28,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    execFileSync(join(root, 'node_modules/.bin/nest'), ['build'], { cwd: dir, stdio: 'inherit' });
  }
  return { script, srcCommit: sha };
}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}
