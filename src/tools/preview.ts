import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config.error';
import { loadTemplateToolConfig } from '../config/config.loader';
import { writePreview, summaryText, type PreviewFiles } from './preview/preview-files';
import { parsePreviewOptions, PreviewUsageError, USAGE } from './preview/preview-options';
import { PreviewError, TemplatePreviewer } from './preview/template-preview';

/**
 * `npm run preview -- <template> [--locale TAG] [--event FILE] [--out DIR]`: a template's copy
 * for one reader, as the sandbox inbox would show it, without a broker, Redis or the vendor;
 * see docs/architecture.md, "Previewing a template". Prints the text summary and the paths of
 * the files written.
 */
export async function runPreview(
  argv: string[],
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<PreviewFiles | undefined> {
  const options = parsePreviewOptions(argv);
  if (options.help) {
    print(USAGE);
    return undefined;
  }
  const escapes = options.mergeEscapesHtml;
  const config = loadTemplateToolConfig(
    escapes === undefined ? env : { ...env, VENDOR_MERGE_ESCAPES_HTML: String(escapes) },
  );
  const event = options.event === undefined ? undefined : readEvent(options.event);
  const previewer = await TemplatePreviewer.create(config);
  const preview = previewer.preview({ template: options.template!, locale: options.locale, event });
  const files = writePreview(preview, options.outDir);
  print(summaryText(preview));
  print(`Wrote ${files.html}\n      ${files.text}`);
  return files;
}

function readEvent(path: string): { json: string; from: string } {
  try {
    return { json: readFileSync(path, 'utf8'), from: path };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PreviewError(`--event ${path} cannot be read (${code})`);
  }
}

/**
 * Exit codes: 0 written, 1 a template or event that cannot be previewed, 2 bad arguments, 78 bad
 * configuration (as the service).
 */
async function main(): Promise<void> {
  try {
    await runPreview(process.argv.slice(2), process.env, (line) => console.log(line));
  } catch (error) {
    if (error instanceof PreviewUsageError) {
      console.error(`preview: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    if (error instanceof PreviewError) {
      console.error(`preview: ${error.message}`);
      process.exit(1);
    }
    // Not the author's mistake but the tool's: the stack is for whoever fixes it.
    console.error('preview failed:', error);
    process.exit(1);
  }
}

if (require.main === module) void main().then(() => process.exit(0));
