import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants.js';

/** One template folder and the Nest module found in it. */
export interface TemplateFolder {
  /** The folder's path relative to the parent of the scanned folder, as errors print it. */
  readonly path: string;
  readonly module: Type;
}

/** Injection token: the folders `TemplateFoldersModule.scan` found, in the order it imported them. */
export const TEMPLATE_FOLDERS = Symbol('TEMPLATE_FOLDERS');

/**
 * Makes every sub-folder of a templates folder a template, without a list to keep: a new
 * template is a new folder and nothing else.
 *
 * Why a scan at start-up rather than a generated index: the scan runs on whatever is there —
 * `src/templates/*.ts` under ts-jest, `dist/templates/*.js` in the built service, bench and
 * chaos builds alike — so nothing can fall out of date and no build step or CI check is needed.
 * It looks for the module file with this file's own extension (`.ts` from source, `.js` when
 * compiled, never `.d.ts` or `.map`), loads it with `import()` of a file URL (the form that
 * works for both CommonJS and ES modules; Node and jest both hand back the module already in
 * their cache, so `@Planner()` stays one decorator), and imports the Nest module it exports.
 * Nest awaits a `Promise<DynamicModule>` in `imports`, so the scan fits a plain `@Module`.
 *
 * A folder must hold exactly one `<name>.module` file exporting one Nest module; anything else
 * stops start-up with the folder's path. Folders are imported in name order, so the order in
 * which planners are found is the same on every machine.
 */
@Module({})
export class TemplateFoldersModule {
  static scan(dir: string): Promise<DynamicModule> {
    const scanning = scanFolders(dir).then((folders) => ({
      module: TemplateFoldersModule,
      imports: folders.map((f) => f.module),
      providers: [{ provide: TEMPLATE_FOLDERS, useValue: folders }],
      exports: [TEMPLATE_FOLDERS],
    }));
    // The promise is made when a module file is evaluated but awaited only when Nest scans
    // modules: without a handler meanwhile, a failed scan would be an unhandled rejection
    // instead of the start-up error Nest reports.
    scanning.catch(() => undefined);
    return scanning;
  }
}

const OWN_EXTENSION = extname(__filename);
const MODULE_FILE = new RegExp(`\\.module\\${OWN_EXTENSION}$`);

async function scanFolders(dir: string): Promise<TemplateFolder[]> {
  const parent = dir.split(/[\\/]/).at(-1) ?? dir;
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const folders: TemplateFolder[] = [];
  for (const name of names) {
    const path = `${parent}/${name}`;
    folders.push({ path, module: await moduleOf(join(dir, name), path) });
  }
  return folders;
}

async function moduleOf(folder: string, path: string): Promise<Type> {
  const files = readdirSync(folder).filter((file) => MODULE_FILE.test(file));
  if (files.length !== 1) {
    throw new Error(
      `template folder ${path}/ must hold exactly one <name>.module${OWN_EXTENSION} that provides its @Planner(); ` +
        (files.length === 0 ? 'it holds none' : `it holds ${files.join(', ')}`),
    );
  }
  const exported = (await import(pathToFileURL(join(folder, files[0])).href)) as Record<
    string,
    unknown
  >;
  const modules = [...new Set(Object.values(exported))].filter(isNestModule);
  if (modules.length !== 1) {
    throw new Error(
      `${path}/${files[0]} must export exactly one @Module() class with providers; it exports ${modules.length}`,
    );
  }
  return modules[0];
}

function isNestModule(value: unknown): value is Type {
  return typeof value === 'function' && Reflect.hasOwnMetadata(MODULE_METADATA.PROVIDERS, value);
}
