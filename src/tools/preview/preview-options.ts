import { parseArgs } from 'node:util';

export interface PreviewOptions {
  /** Absent only with `--help`. */
  template?: string;
  locale?: string;
  /** A file holding one event, as published. */
  event?: string;
  outDir: string;
  /** `--merge-escapes-html`, which replaces `VENDOR_MERGE_ESCAPES_HTML` when given. */
  mergeEscapesHtml?: boolean;
  help: boolean;
}

/** A usage error: the message says what is wrong with which argument. */
export class PreviewUsageError extends Error {
  override readonly name = 'PreviewUsageError';
}

export const DEFAULT_OUT_DIR = 'preview';

export const USAGE = `npm run preview -- <template> [--locale TAG] [--event FILE] [--out DIR] [--merge-escapes-html true|false]

Renders a template's subject, preview text and body for one recipient, with the attributes merged
as the sandbox merges them, and writes <DIR>/<template>.<locale>.html and .txt. Needs no broker.

  <template>                  a template folder's name: welcome, order-confirmation, …
  --locale TAG                the reader's locale (BCP 47, e.g. de, de-AT, ar, ja), replacing the event's
  --event FILE                an event (JSON, CloudEvents structured, as published); default: a sample
  --out DIR                   where the files go (default: ${DEFAULT_OUT_DIR})
  --merge-escapes-html B      whether the vendor escapes values into the body (default:
                              VENDOR_MERGE_ESCAPES_HTML, else true)

SENDER_*, DISABLE_TRACKING_LINKS, VENDOR_MERGE_ESCAPES_HTML and TEMPLATE_* are read from the
environment as the service reads them; nothing else is.`;

export function parsePreviewOptions(argv: string[]): PreviewOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        locale: { type: 'string' },
        event: { type: 'string' },
        out: { type: 'string', default: DEFAULT_OUT_DIR },
        'merge-escapes-html': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new PreviewUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { outDir: values.out, help: true };
  if (positionals.length !== 1) {
    throw new PreviewUsageError(
      positionals.length === 0 ? 'name the template to preview' : 'name one template',
    );
  }
  const escapes = values['merge-escapes-html'];
  if (escapes !== undefined && escapes !== 'true' && escapes !== 'false') {
    throw new PreviewUsageError('--merge-escapes-html must be true or false');
  }
  for (const flag of ['locale', 'event', 'out'] as const) {
    if (values[flag] === '') throw new PreviewUsageError(`--${flag} needs a value`);
  }
  return {
    template: positionals[0],
    locale: values.locale,
    event: values.event,
    outDir: values.out,
    mergeEscapesHtml: escapes === undefined ? undefined : escapes === 'true',
    help: false,
  };
}
