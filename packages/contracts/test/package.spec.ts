import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Where this spec is, as jest knows it (the spec runs as an ES module: no __dirname).
const PACKAGE = join(dirname(expect.getState().testPath!), '..');
const ROOT = join(PACKAGE, '../..');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
};

/** README, "Publishing to mailbridge": what `npm pack -w @mailbridge/contracts` puts in the tarball. */
describe('the @mailbridge/contracts tarball', () => {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '-w', manifest.name], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ name: string; files: Array<{ path: string }> }>;
  const files = packed.files.map((f) => f.path);

  it('holds the build (ES modules, declarations, schemas) and its manifest, nothing else', () => {
    expect(packed.name).toBe('@mailbridge/contracts');
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cloudevents.js',
        'dist/schemas/user.signed_up.v1.json',
        'dist/schemas/order.placed.v1.json',
        'dist/schemas/email.campaign.requested.v1.json',
        'dist/schemas/email.contact_list.requested.v1.json',
      ]),
    );
    expect(files.filter((f) => f !== 'package.json' && !f.startsWith('dist/'))).toEqual([]);
  });

  it('depends on no part of NestJS, nor on the service, and imports only what it declares', () => {
    const dependencies = Object.keys(manifest.dependencies);
    expect(dependencies.filter((d) => /^@nestjs\/|^class-(validator|transformer)/.test(d))).toEqual(
      [],
    );
    const dist = join(PACKAGE, 'dist');
    const imported = new Set(
      readdirSync(dist)
        .filter((f) => f.endsWith('.js'))
        .flatMap((f) => [...readFileSync(join(dist, f), 'utf8').matchAll(/from '([^']+)'/g)])
        .map((m) => m[1])
        .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
        .map((specifier) => specifier.split('/')[0]),
    );
    expect([...imported].sort()).toEqual([...dependencies].sort());
  });
});
