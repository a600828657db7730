import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import type { EnvironmentVariables } from './environment.dto';
import { isLoopback } from './vendor-url';

/**
 * TLS to the brokers: `false`, or what `tls.connect` gets (PEM text read at start). Node verifies
 * the broker's certificate and name in every case; there is no switch that turns this off.
 */
export type KafkaTls =
  | false
  | {
      /** CA bundle the brokers' certificates must chain to; replaces Node's default CAs. */
      ca?: string;
      cert?: string;
      key?: string;
      passphrase?: string;
      /** The name the broker's certificate must carry, when it is not the bootstrap host. */
      servername?: string;
    };

export type PasswordMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

export type KafkaSasl =
  | undefined
  | { mechanism: PasswordMechanism; username: string; password: string }
  /** A token a sidecar or a projected volume keeps fresh: read again at every authentication. */
  | { mechanism: 'oauthbearer'; tokenFile: string }
  /** OAuth 2.0 client credentials against the identity provider's token endpoint. */
  | { mechanism: 'oauthbearer'; tokenEndpoint: TokenEndpointConfig };

export interface TokenEndpointConfig {
  url: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** `basic`: client id and secret in an Authorization header; `post`: in the form body. */
  clientAuth: 'basic' | 'post';
}

const REDACTED = '[redacted]';

/** `config.kafka.ssl` and `config.kafka.sasl` from the validated variables. */
export function kafkaSecurityFrom(env: EnvironmentVariables): { ssl: KafkaTls; sasl: KafkaSasl } {
  return { ssl: tlsFrom(env), sasl: saslFrom(env) };
}

function tlsFrom(env: EnvironmentVariables): KafkaTls {
  if (!env.KAFKA_SSL) return false;
  const options = {
    ca: env.KAFKA_SSL_CA,
    cert: env.KAFKA_SSL_CERT,
    key: env.KAFKA_SSL_KEY,
    passphrase: env.KAFKA_SSL_KEY_PASSPHRASE,
    servername: env.KAFKA_SSL_SERVERNAME,
  };
  // Unset options stay out: tls.connect would take an explicit `undefined` CA as "none".
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function saslFrom(env: EnvironmentVariables): KafkaSasl {
  const mechanism = env.KAFKA_SASL_MECHANISM;
  if (mechanism === 'none') return undefined;
  if (mechanism !== 'oauthbearer') {
    return {
      mechanism,
      username: env.KAFKA_SASL_USERNAME ?? '',
      password: env.KAFKA_SASL_PASSWORD ?? '',
    };
  }
  if (env.KAFKA_SASL_OAUTHBEARER_TOKEN_FILE) {
    return { mechanism, tokenFile: env.KAFKA_SASL_OAUTHBEARER_TOKEN_FILE };
  }
  return {
    mechanism,
    tokenEndpoint: {
      url: env.KAFKA_SASL_OAUTHBEARER_TOKEN_URL ?? '',
      clientId: env.KAFKA_SASL_OAUTHBEARER_CLIENT_ID ?? '',
      clientSecret: env.KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET ?? '',
      ...(env.KAFKA_SASL_OAUTHBEARER_SCOPE ? { scope: env.KAFKA_SASL_OAUTHBEARER_SCOPE } : {}),
      clientAuth: env.KAFKA_SASL_OAUTHBEARER_CLIENT_AUTH,
    },
  };
}

/** The Kafka section as it may be logged: keys, passwords and secrets replaced, PEM shortened. */
export function redactKafkaSecurity<T extends { ssl: KafkaTls; sasl: KafkaSasl }>(kafka: T): T {
  const { ssl, sasl } = kafka;
  return {
    ...kafka,
    ssl: ssl && {
      ...ssl,
      ...(ssl.ca ? { ca: '[pem]' } : {}),
      ...(ssl.cert ? { cert: '[pem]' } : {}),
      ...(ssl.key ? { key: REDACTED } : {}),
      ...(ssl.passphrase ? { passphrase: REDACTED } : {}),
    },
    sasl:
      sasl &&
      ('password' in sasl
        ? { ...sasl, password: REDACTED }
        : 'tokenEndpoint' in sasl
          ? { ...sasl, tokenEndpoint: { ...sasl.tokenEndpoint, clientSecret: REDACTED } }
          : sasl),
  };
}

/** The secrets of the Kafka section, for scrubbing text that might repeat one (client logs). */
export function kafkaSecrets(kafka: { ssl: KafkaTls; sasl: KafkaSasl }): string[] {
  const { ssl, sasl } = kafka;
  const secrets = [
    ssl ? ssl.passphrase : undefined,
    sasl && 'password' in sasl ? sasl.password : undefined,
    sasl && 'tokenEndpoint' in sasl ? sasl.tokenEndpoint.clientSecret : undefined,
  ];
  return secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/**
 * What the schema cannot say about Kafka security: settings that need one another, TLS material
 * that does not parse or does not fit together, a token file that cannot be read. Problems name
 * the variable the operator set (`…_FILE` when the value came from a file), never its value.
 * `fromFile` holds the variables whose value was read from their `…_FILE`.
 */
export function checkKafkaSecurity(
  vars: EnvironmentVariables,
  files: { fromFile: ReadonlySet<string>; unreadable: ReadonlySet<string> },
): string[] {
  return [...checkTls(vars, files), ...checkSasl(vars)];
}

type TlsVariable = 'KAFKA_SSL_CA' | 'KAFKA_SSL_CERT' | 'KAFKA_SSL_KEY' | 'KAFKA_SSL_KEY_PASSPHRASE';

function checkTls(
  vars: EnvironmentVariables,
  { fromFile, unreadable }: { fromFile: ReadonlySet<string>; unreadable: ReadonlySet<string> },
): string[] {
  const name = (variable: string) => (fromFile.has(variable) ? `${variable}_FILE` : variable);
  const tlsVariables: TlsVariable[] = [
    'KAFKA_SSL_CA',
    'KAFKA_SSL_CERT',
    'KAFKA_SSL_KEY',
    'KAFKA_SSL_KEY_PASSPHRASE',
  ];
  // A file that could not be read is reported already; what follows would only guess.
  if (tlsVariables.some((v) => unreadable.has(v))) return [];
  const set: string[] = tlsVariables.filter((v) => vars[v] !== undefined);
  if (vars.KAFKA_SSL_SERVERNAME !== undefined) set.push('KAFKA_SSL_SERVERNAME');
  if (!vars.KAFKA_SSL) {
    // Material that would be ignored: the operator meant TLS, the client would speak plain text.
    return set.length > 0 ? [`${set.map(name).join(', ')} need KAFKA_SSL=true`] : [];
  }
  const problems: string[] = [];
  if (vars.KAFKA_SSL_CA !== undefined && !parsesAsCertificates(vars.KAFKA_SSL_CA)) {
    problems.push(`${name('KAFKA_SSL_CA')} does not hold PEM certificates`);
  }
  return [...problems, ...checkClientCertificate(vars, name)];
}

/**
 * The client certificate (mTLS): a certificate and its key, set together, each parsing, the key
 * decrypted by its passphrase if it has one, and the certificate for that key. `name` gives the
 * variable as the operator set it.
 */
function checkClientCertificate(
  vars: EnvironmentVariables,
  name: (variable: string) => string,
): string[] {
  const problems: string[] = [];
  const { KAFKA_SSL_CERT: certPem, KAFKA_SSL_KEY: keyPem, KAFKA_SSL_KEY_PASSPHRASE: pass } = vars;
  if ((certPem === undefined) !== (keyPem === undefined)) {
    problems.push(
      certPem === undefined
        ? `${name('KAFKA_SSL_KEY')} needs KAFKA_SSL_CERT (or KAFKA_SSL_CERT_FILE): a client certificate is a certificate and its key`
        : `${name('KAFKA_SSL_CERT')} needs KAFKA_SSL_KEY (or KAFKA_SSL_KEY_FILE): a client certificate is a certificate and its key`,
    );
  }
  if (pass !== undefined && keyPem === undefined) {
    problems.push(`${name('KAFKA_SSL_KEY_PASSPHRASE')} is set without KAFKA_SSL_KEY`);
  }
  let cert: X509Certificate | undefined;
  if (certPem !== undefined) {
    cert = firstCertificate(certPem);
    if (!cert) problems.push(`${name('KAFKA_SSL_CERT')} does not hold a PEM certificate`);
  }
  let key: KeyObject | undefined;
  if (keyPem !== undefined) {
    const parsed = privateKey(keyPem, pass);
    if (typeof parsed === 'string') {
      problems.push(
        parsed === 'passphrase-missing'
          ? `${name('KAFKA_SSL_KEY')} is encrypted: set KAFKA_SSL_KEY_PASSPHRASE (or KAFKA_SSL_KEY_PASSPHRASE_FILE)`
          : parsed === 'passphrase-wrong'
            ? `${name('KAFKA_SSL_KEY')} cannot be decrypted with ${name('KAFKA_SSL_KEY_PASSPHRASE')}`
            : `${name('KAFKA_SSL_KEY')} does not hold a PEM private key`,
      );
    } else {
      key = parsed;
    }
  }
  if (cert && key && !cert.checkPrivateKey(key)) {
    problems.push(
      `${name('KAFKA_SSL_CERT')} and ${name('KAFKA_SSL_KEY')} do not belong together (the certificate is not for this key)`,
    );
  }
  return problems;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function parsesAsCertificates(pem: string): boolean {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  return blocks.length > 0 && blocks.every((block) => firstCertificate(block) !== undefined);
}

function firstCertificate(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

type KeyProblem = 'passphrase-missing' | 'passphrase-wrong' | 'unparseable';

function privateKey(pem: string, passphrase: string | undefined): KeyObject | KeyProblem {
  if (!pem.includes('PRIVATE KEY-----')) return 'unparseable';
  // PKCS8 (BEGIN ENCRYPTED PRIVATE KEY) or legacy OpenSSL (Proc-Type: 4,ENCRYPTED).
  const encrypted = pem.includes('ENCRYPTED');
  if (encrypted && passphrase === undefined) return 'passphrase-missing';
  try {
    return createPrivateKey({ key: pem, format: 'pem', passphrase });
  } catch {
    return encrypted ? 'passphrase-wrong' : 'unparseable';
  }
}

const OAUTH_VARIABLES = [
  'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE',
  'KAFKA_SASL_OAUTHBEARER_TOKEN_URL',
  'KAFKA_SASL_OAUTHBEARER_CLIENT_ID',
  'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET',
  'KAFKA_SASL_OAUTHBEARER_SCOPE',
] as const;

function checkSasl(vars: EnvironmentVariables): string[] {
  const set = OAUTH_VARIABLES.filter((v) => vars[v] !== undefined && vars[v] !== '');
  if (vars.KAFKA_SASL_MECHANISM !== 'oauthbearer') {
    return set.length > 0 ? [`${set.join(', ')} need KAFKA_SASL_MECHANISM=oauthbearer`] : [];
  }
  const file = vars.KAFKA_SASL_OAUTHBEARER_TOKEN_FILE;
  const url = vars.KAFKA_SASL_OAUTHBEARER_TOKEN_URL;
  if (file && url) {
    return [
      'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_TOKEN_URL are both set; set one',
    ];
  }
  if (file) {
    try {
      accessSync(file, constants.R_OK);
      return [];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return [`KAFKA_SASL_OAUTHBEARER_TOKEN_FILE cannot be read (${code})`];
    }
  }
  if (!url) {
    return [
      'KAFKA_SASL_MECHANISM=oauthbearer needs KAFKA_SASL_OAUTHBEARER_TOKEN_FILE or KAFKA_SASL_OAUTHBEARER_TOKEN_URL',
    ];
  }
  const problems: string[] = [];
  if (!vars.KAFKA_SASL_OAUTHBEARER_CLIENT_ID) {
    problems.push('KAFKA_SASL_OAUTHBEARER_TOKEN_URL needs KAFKA_SASL_OAUTHBEARER_CLIENT_ID');
  }
  if (!vars.KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET) {
    problems.push(
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL needs KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET (or KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE)',
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // reported by the schema
  }
  if (parsed && parsed.protocol !== 'https:' && !isLoopback(parsed.hostname)) {
    problems.push(
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL must use https (http is allowed only for loopback)',
    );
  }
  return problems;
}
