import { parseArgs } from 'node:util';

/** Records per second when `--rate` is not given: gentle on the vendor, quick for a few hundred. */
export const DEFAULT_RATE = 20;
const MAX_RATE = 10_000;
/** Dead letters a dry run lists one by one when `--show` is not given. */
export const DEFAULT_SHOW = 20;

export interface RedriveOptions {
  /** Error codes to redrive (`mailbridge_dlt-error-code`); empty: every code (dry runs only). */
  codes: string[];
  /** Original topics to redrive to; empty: every inbound topic. */
  topics: string[];
  /** Dead letters written at or after this time (ms since the epoch). */
  since?: number;
  /** Dead letters written before this time (ms since the epoch). */
  until?: number;
  dryRun: boolean;
  /** Records per second. */
  rate: number;
  /** Dead letters a dry run lists one by one. */
  show: number;
  /** The compacted topic recording what was redriven; default derived from the dead-letter topic. */
  logTopic?: string;
  help: boolean;
}

/** A usage error: the message says what is wrong with which argument. */
export class RedriveUsageError extends Error {
  override readonly name = 'RedriveUsageError';
}

export const USAGE = `npm run redrive -- --code CODE [options]

Republishes dead letters to their original topic (original key, value and headers, without the
dead-letter headers), recording each on the redrive log so it is never redriven twice.

  --code CODE       redrive dead letters with this error code (repeat, or a,b); required unless --dry-run
  --topic TOPIC     only dead letters whose original topic is TOPIC (repeat, or a,b)
  --since TIME      only dead letters written at or after TIME (RFC 3339, or ms since the epoch)
  --until TIME      only dead letters written before TIME
  --dry-run         count per code and topic, list what would go, send nothing
  --rate N          records per second (default ${DEFAULT_RATE})
  --show N          dead letters a dry run lists (default ${DEFAULT_SHOW})
  --log-topic NAME  the redrive log (default: <TOPIC_DEAD_LETTER>.redrive-log)

Connection settings and topic names come from the service's environment variables.`;

export function parseRedriveOptions(argv: string[]): RedriveOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        code: { type: 'string', multiple: true },
        topic: { type: 'string', multiple: true },
        since: { type: 'string' },
        until: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        rate: { type: 'string' },
        show: { type: 'string' },
        'log-topic': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new RedriveUsageError((error as Error).message);
  }
  const options: RedriveOptions = {
    codes: list(values.code),
    topics: list(values.topic),
    since: values.since === undefined ? undefined : time('--since', values.since),
    until: values.until === undefined ? undefined : time('--until', values.until),
    dryRun: values['dry-run'],
    rate: values.rate === undefined ? DEFAULT_RATE : positive('--rate', values.rate, MAX_RATE),
    show: values.show === undefined ? DEFAULT_SHOW : count('--show', values.show),
    logTopic: values['log-topic'],
    help: values.help,
  };
  if (options.help) return options;
  if (!options.dryRun && options.codes.length === 0) {
    throw new RedriveUsageError(
      '--code is required to redrive (say which cause was fixed); --dry-run shows the codes there are',
    );
  }
  if (
    options.since !== undefined &&
    options.until !== undefined &&
    options.since >= options.until
  ) {
    throw new RedriveUsageError('--since must be before --until');
  }
  return options;
}

function list(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function time(flag: string, value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  // RFC 3339: a date, a time and a zone; Date.parse alone accepts far looser text.
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;
  const ms = rfc3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new RedriveUsageError(
      `${flag} must be an RFC 3339 time with a zone (2026-11-22T10:00:00Z) or milliseconds since the epoch`,
    );
  }
  return ms;
}

function positive(flag: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > max) {
    throw new RedriveUsageError(`${flag} must be a number above 0 and at most ${max}`);
  }
  return n;
}

function count(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new RedriveUsageError(`${flag} must be a whole number`);
  return n;
}
