import { readFileSync } from 'node:fs';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { AppConfig } from './app-config';
import { ConfigError } from './config.error';
import { defaultsFor, variablesReadableFromFile, type Mode } from './default.decorator';
import { EnvironmentVariables } from './environment.dto';
import { checkKafkaSecurity } from './kafka-security';
import { isSafeVendorUrl } from './vendor-url';
import { checkVendorRates } from './vendor-rate';

type Env = Record<string, string | undefined>;

/**
 * Builds the typed configuration from environment variables. Throws one {@link ConfigError}
 * listing every missing or malformed variable; values are never echoed, so keys stay out of it.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  return load(env, () => true);
}

/** The settings a command-line tool needs to reach the service's broker and topics. */
export type KafkaToolConfig = Pick<AppConfig, 'kafka' | 'topics'>;

/**
 * The Kafka settings (`KAFKA_*`) and topic names (`TOPIC_*`) alone, validated as `loadConfig`
 * validates them, for a tool run beside the service (`npm run redrive`): the vendor's keys and
 * the other settings are neither required nor read, their files included.
 */
export function loadKafkaToolConfig(env: Env = process.env): KafkaToolConfig {
  const { kafka, topics } = load(
    env,
    (name) => name === 'MAILBRIDGE_MODE' || name.startsWith('KAFKA_') || name.startsWith('TOPIC_'),
  );
  return { kafka, topics };
}

/** The settings that change what a template's copy says or how it is merged. */
const COPY_SETTING =
  /^(SENDER_[A-Z_]+|TEMPLATE_[A-Z_]+|DISABLE_TRACKING_LINKS|VENDOR_MERGE_ESCAPES_HTML)$/;

/**
 * The configuration `npm run preview` renders templates with: the settings that change the copy
 * (`SENDER_*`, `DISABLE_TRACKING_LINKS`, `VENDOR_MERGE_ESCAPES_HTML`, `TEMPLATE_*`), validated as
 * `loadConfig` validates them; every other setting at its local default, whatever `env` says, so
 * that a preview reads no broker, Redis or vendor settings and needs no keys.
 */
export function loadTemplateToolConfig(env: Env = process.env): AppConfig {
  const copy = Object.entries(env).filter(([name]) => COPY_SETTING.test(name));
  return load({ ...Object.fromEntries(copy), MAILBRIDGE_MODE: 'local' }, (name) =>
    COPY_SETTING.test(name),
  );
}

function load(env: Env, inScope: (variable: string) => boolean): AppConfig {
  const problems: string[] = [];
  const unreadable = new Set<string>();
  const fromFile = new Set<string>();
  const mode = (env.MAILBRIDGE_MODE ?? 'production') as Mode;
  // A mode that is not one is reported by the schema, against production's defaults.
  const raw: Env = defaultsFor(EnvironmentVariables, mode === 'local' ? 'local' : 'production');
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') raw[name] = value;
  }
  raw.MAILBRIDGE_MODE = mode;
  for (const name of variablesReadableFromFile(EnvironmentVariables)) {
    const file = env[`${name}_FILE`];
    if (!file || !inScope(name)) continue;
    if (env[name]) {
      problems.push(`${name} and ${name}_FILE are both set; set one`);
      continue;
    }
    try {
      raw[name] = readFileSync(file, 'utf8').trim();
      fromFile.add(name);
    } catch (error) {
      unreadable.add(name);
      problems.push(
        `${name}_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }

  const vars = plainToInstance(EnvironmentVariables, raw);
  const invalid = validateSync(vars, { forbidUnknownValues: true });
  problems.push(
    ...invalid.filter((e) => !unreadable.has(e.property) && inScope(e.property)).flatMap(describe),
  );
  if (inScope('VENDOR_RELAY_BASE_URL')) problems.push(...checkInsecureUrls(vars));
  problems.push(...checkKafkaSecurity(vars, { fromFile, unreadable }));
  if (inScope('VENDOR_CONTACTS_RATE')) problems.push(...checkVendorRates(vars));
  if (
    inScope('SHUTDOWN_VENDOR_WAIT_MS') &&
    vars.SHUTDOWN_VENDOR_WAIT_MS !== undefined &&
    vars.SHUTDOWN_VENDOR_WAIT_MS >= vars.SHUTDOWN_TIMEOUT_MS
  ) {
    problems.push('SHUTDOWN_VENDOR_WAIT_MS must be below SHUTDOWN_TIMEOUT_MS');
  }
  if (
    inScope('REDIS_CLUSTER_NODES') &&
    vars.REDIS_SENTINELS !== undefined &&
    vars.REDIS_CLUSTER_NODES !== undefined
  ) {
    problems.push('REDIS_SENTINELS and REDIS_CLUSTER_NODES cannot both be set: pick one topology');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return AppConfig.from(vars);
}

function describe(error: ValidationError): string[] {
  return Object.values(error.constraints ?? {}).map((message) =>
    message.startsWith(error.property) ? message : `${error.property}: ${message}`,
  );
}

/** Keys must not cross the network in clear text, except to loopback or hosts allowed by name. */
function checkInsecureUrls(vars: EnvironmentVariables): string[] {
  const problems: string[] = [];
  for (const name of ['VENDOR_RELAY_BASE_URL', 'VENDOR_BASE_URL'] as const) {
    let parsed: URL;
    try {
      parsed = new URL(vars[name]);
    } catch {
      continue; // already reported by the schema
    }
    if (isSafeVendorUrl(parsed, vars.VENDOR_ALLOW_INSECURE_HOSTS)) continue;
    problems.push(
      `${name} must use https (http is allowed only for loopback or VENDOR_ALLOW_INSECURE_HOSTS)`,
    );
  }
  return problems;
}
