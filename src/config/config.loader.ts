import { readFileSync } from 'node:fs';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { AppConfig } from './app-config';
import { EnvironmentVariables, type Mode } from './environment.dto';
import { ConfigError } from './config.error';
import { SANDBOX_API_KEY, SANDBOX_PORT, SANDBOX_RELAY_ACCESS_TOKEN } from './sandbox-defaults';

type Env = Record<string, string | undefined>;

/** Defaults that hold in every mode. */
const COMMON_DEFAULTS: Env = {
  LOG_LEVEL: 'log',
  HTTP_PORT: '3000',
  KAFKA_CLIENT_ID: 'mailbridge',
  KAFKA_GROUP_ID: 'mailbridge',
  KAFKA_SSL: 'false',
  KAFKA_SASL_MECHANISM: 'none',
  KAFKA_CREATE_TOPICS: 'false',
  KAFKA_TOPIC_PARTITIONS: '6',
  KAFKA_REPLICATION_FACTOR: '-1',
  TOPIC_USER_SIGNED_UP: 'user.signed_up.v1',
  TOPIC_ORDER_PLACED: 'order.placed.v1',
  TOPIC_CAMPAIGN_REQUESTED: 'email.campaign.requested.v1',
  TOPIC_CONTACT_LIST_REQUESTED: 'email.contact_list.requested.v1',
  TOPIC_CAMPAIGN_SENT: 'email.campaign.sent.v1',
  TOPIC_CONTACT_LIST_CREATED: 'email.contact_list.created.v1',
  TOPIC_DISPATCH_FAILED: 'email.dispatch.failed.v1',
  TOPIC_DEAD_LETTER: 'mailbridge.dead-letter.v1',
  VENDOR_RELAY_BASE_URL: 'https://api.tinyemail.com/relay/v1',
  VENDOR_BASE_URL: 'https://api.tinyemail.com/v1',
  VENDOR_CONTACTS_PATH: '/contacts',
  VENDOR_RELAY_TOKEN_FORM: 'bare',
  VENDOR_ALLOW_INSECURE_HOSTS: '',
  VENDOR_CONNECT_TIMEOUT_MS: '5000',
  VENDOR_HEADERS_TIMEOUT_MS: '15000',
  VENDOR_BODY_TIMEOUT_MS: '15000',
  VENDOR_RETRY_MAX_ATTEMPTS: '6',
  VENDOR_RETRY_BASE_MS: '250',
  VENDOR_RETRY_CAP_MS: '30000',
  VENDOR_RETRY_AFTER_MAX_MS: '120000',
  VENDOR_MAX_RECIPIENTS_PER_REQUEST: '1000',
  VENDOR_MAX_BODY_BYTES: '5242880',
  VENDOR_POOL_CONNECTIONS: '32',
  VENDOR_CHUNK_CONCURRENCY: '4',
  SENDER_FROM_NAME: 'mailbridge',
  DISABLE_TRACKING_LINKS: 'false',
  CONSUMER_MAX_IN_FLIGHT: '5000',
  CONSUMER_COMMIT_INTERVAL_MS: '1000',
  // A new group deployed against an existing topic must not email everyone still in retention.
  CONSUMER_START_FROM: 'latest',
  LIVENESS_STALL_MS: '300000',
  MAX_EVENT_BYTES: '262144',
  BATCH_LINGER_MS: '100',
  BATCH_MAX_RECIPIENTS: '1000',
  BATCH_MAX_BYTES: '4194304',
  CONTACT_LIST_WINDOW_MS: '10000',
  CONTACT_LIST_MAX_MEMBERS: '1000',
  CONTACT_LIST_CLOCK_SKEW_MS: '30000',
  CONTACT_LIST_NAME_PATTERN: 'new-customers-{window}',
  PAUSE_ON_VENDOR_FAILURE_MS: '5000',
  PAUSE_ON_AUTH_FAILURE_MS: '60000',
  IDEMPOTENCY_STORE: 'redis',
  REDIS_URL: 'redis://127.0.0.1:6379',
  IDEMPOTENCY_KEY_PREFIX: 'mailbridge:idem:',
  IDEMPOTENCY_TTL_SECONDS: '604800',
  IDEMPOTENCY_CLAIM_TTL_MS: '120000',
  IDEMPOTENCY_INSTANCE_TTL_MS: '10000',
  AMBIGUOUS_SEND_POLICY: 'resend',
  SHUTDOWN_TIMEOUT_MS: '15000',
};

/** Embedded defaults for `MAILBRIDGE_MODE=local`: a broker and the sandbox on loopback. */
const LOCAL_DEFAULTS: Env = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  KAFKA_CREATE_TOPICS: 'true',
  IDEMPOTENCY_STORE: 'memory',
  CONSUMER_START_FROM: 'earliest',
  VENDOR_RELAY_BASE_URL: `http://127.0.0.1:${SANDBOX_PORT}/relay/v1`,
  VENDOR_BASE_URL: `http://127.0.0.1:${SANDBOX_PORT}/v1`,
  VENDOR_RELAY_ACCESS_TOKEN: SANDBOX_RELAY_ACCESS_TOKEN,
  VENDOR_API_KEY: SANDBOX_API_KEY,
  SENDER_FROM_EMAIL: 'hello@mailbridge.local',
};

/** Variables that may instead name a file holding the value (container secrets). */
const FILE_VARIABLES = [
  'VENDOR_RELAY_ACCESS_TOKEN',
  'VENDOR_API_KEY',
  'KAFKA_SASL_PASSWORD',
] as const;

/**
 * Builds the typed configuration from environment variables. Throws one {@link ConfigError}
 * listing every missing or malformed variable; values are never echoed, so keys stay out of it.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const unreadable = new Set<string>();
  const raw: Env = { ...COMMON_DEFAULTS };
  const mode = (env.MAILBRIDGE_MODE ?? 'production') as Mode;
  if (mode === 'local') Object.assign(raw, LOCAL_DEFAULTS);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') raw[name] = value;
  }
  raw.MAILBRIDGE_MODE = mode;
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) {
      problems.push(`${name} and ${name}_FILE are both set; set one`);
      continue;
    }
    try {
      raw[name] = readFileSync(file, 'utf8').trim();
    } catch (error) {
      unreadable.add(name);
      problems.push(
        `${name}_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }

  const vars = plainToInstance(EnvironmentVariables, raw);
  const invalid = validateSync(vars, { forbidUnknownValues: true });
  problems.push(...invalid.filter((e) => !unreadable.has(e.property)).flatMap(describe));
  problems.push(...checkInsecureUrls(vars));
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
    if (parsed.protocol === 'https:') continue;
    if (isLoopback(parsed.hostname) || vars.VENDOR_ALLOW_INSECURE_HOSTS.includes(parsed.hostname)) {
      continue;
    }
    problems.push(
      `${name} must use https (http is allowed only for loopback or VENDOR_ALLOW_INSECURE_HOSTS)`,
    );
  }
  return problems;
}

export function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
