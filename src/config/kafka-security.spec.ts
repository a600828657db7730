import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.error';
import { loadConfig } from './config.loader';

const production = {
  KAFKA_BROKERS: 'kafka-1:9093',
  VENDOR_RELAY_ACCESS_TOKEN: 'relay-secret-value',
  VENDOR_API_KEY: 'api-secret-value',
  SENDER_FROM_EMAIL: 'hello@shop.example',
  SUPPRESSION_HASH_KEY: 'suppression-hash-key-secret-value-32',
};

type Env = Record<string, string | undefined>;

function problemsOf(env: Env): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
}

const PASSPHRASE = 'key-passphrase-value';

/** A self-signed certificate with its key (plain and encrypted), and an unrelated key. */
function tlsFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', '-subj', '/CN=other', ...ec, '-keyout', file('other.key'));
  openssl(
    'req',
    '-x509',
    '-subj',
    '/CN=client',
    ...ec,
    '-keyout',
    file('key.pem'),
    '-out',
    file('cert.pem'),
  );
  writeFileSync(file('passphrase'), `${PASSPHRASE}\n`);
  openssl(
    'pkcs8',
    '-topk8',
    '-in',
    file('key.pem'),
    '-out',
    file('enc.key'),
    '-v2',
    'aes-256-cbc',
    '-passout',
    `file:${file('passphrase')}`,
  );
  writeFileSync(file('wrong-passphrase'), 'not-the-passphrase');
  writeFileSync(file('garbage'), 'this is not PEM at all');
  return { dir, file };
}

describe('Kafka TLS settings', () => {
  const { file } = tlsFiles();
  const mtls = {
    ...production,
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: file('cert.pem'),
    KAFKA_SSL_CERT_FILE: file('cert.pem'),
    KAFKA_SSL_KEY_FILE: file('enc.key'),
    KAFKA_SSL_KEY_PASSPHRASE_FILE: file('passphrase'),
  };

  it('reads the CA, the client certificate, its key and passphrase from files at start', () => {
    const config = loadConfig({ ...mtls, KAFKA_SSL_SERVERNAME: 'kafka.internal' });
    const cert = readFileSync(file('cert.pem'), 'utf8').trim();
    expect(config.kafka.ssl).toEqual({
      ca: cert,
      cert,
      key: readFileSync(file('enc.key'), 'utf8').trim(),
      passphrase: PASSPHRASE,
      servername: 'kafka.internal',
    });
  });

  it('takes PEM given inline too, and TLS alone is just KAFKA_SSL=true', () => {
    const cert = readFileSync(file('cert.pem'), 'utf8');
    const key = readFileSync(file('key.pem'), 'utf8');
    const config = loadConfig({
      ...production,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CERT: cert,
      KAFKA_SSL_KEY: key,
    });
    expect(config.kafka.ssl).toEqual({ cert, key });
    expect(loadConfig({ ...production, KAFKA_SSL: 'true' }).kafka.ssl).toEqual({});
    expect(loadConfig(production).kafka.ssl).toBe(false);
  });

  it('keeps the key and its passphrase out of JSON renderings, and PEM bodies too', () => {
    const json = JSON.stringify(loadConfig(mtls));
    expect(json).not.toContain(PASSPHRASE);
    expect(json).not.toContain('PRIVATE KEY');
    expect(json).not.toContain('BEGIN CERTIFICATE');
    expect(JSON.parse(json)).toMatchObject({
      kafka: { ssl: { ca: '[pem]', cert: '[pem]', key: '[redacted]', passphrase: '[redacted]' } },
    });
  });

  it('names a missing or unreadable file by its setting, and nothing that would follow from it', () => {
    expect(problemsOf({ ...mtls, KAFKA_SSL_KEY_FILE: join(file('none'), 'key.pem') })).toEqual([
      'KAFKA_SSL_KEY_FILE cannot be read (ENOENT)',
    ]);
    expect(problemsOf({ ...mtls, KAFKA_SSL_CA_FILE: file('') })).toEqual([
      'KAFKA_SSL_CA_FILE cannot be read (EISDIR)',
    ]);
  });

  it('refuses TLS material without KAFKA_SSL=true, which would otherwise be ignored', () => {
    expect(problemsOf({ ...mtls, KAFKA_SSL: 'false' })).toEqual([
      'KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE, KAFKA_SSL_KEY_PASSPHRASE_FILE need KAFKA_SSL=true',
    ]);
    expect(problemsOf({ ...production, KAFKA_SSL_SERVERNAME: 'kafka.internal' })).toEqual([
      'KAFKA_SSL_SERVERNAME need KAFKA_SSL=true',
    ]);
  });

  it('wants a certificate and its key together, and a passphrase only with a key', () => {
    expect(problemsOf({ ...mtls, KAFKA_SSL_KEY_FILE: undefined })).toEqual([
      expect.stringMatching(/^KAFKA_SSL_CERT_FILE needs KAFKA_SSL_KEY /),
      'KAFKA_SSL_KEY_PASSPHRASE_FILE is set without KAFKA_SSL_KEY',
    ]);
    expect(
      problemsOf({
        ...mtls,
        KAFKA_SSL_CERT_FILE: undefined,
        KAFKA_SSL_KEY_PASSPHRASE_FILE: undefined,
        KAFKA_SSL_KEY_FILE: file('key.pem'),
      }),
    ).toEqual([expect.stringMatching(/^KAFKA_SSL_KEY_FILE needs KAFKA_SSL_CERT /)]);
  });

  it('says which file does not parse, is encrypted, has the wrong passphrase or the wrong key', () => {
    expect(
      problemsOf({
        ...mtls,
        KAFKA_SSL_CA_FILE: file('garbage'),
        KAFKA_SSL_CERT_FILE: file('garbage'),
      }),
    ).toEqual([
      'KAFKA_SSL_CA_FILE does not hold PEM certificates',
      'KAFKA_SSL_CERT_FILE does not hold a PEM certificate',
    ]);
    expect(problemsOf({ ...mtls, KAFKA_SSL_KEY_FILE: file('garbage') })).toEqual([
      'KAFKA_SSL_KEY_FILE does not hold a PEM private key',
    ]);
    expect(problemsOf({ ...mtls, KAFKA_SSL_KEY_PASSPHRASE_FILE: undefined })).toEqual([
      'KAFKA_SSL_KEY_FILE is encrypted: set KAFKA_SSL_KEY_PASSPHRASE (or KAFKA_SSL_KEY_PASSPHRASE_FILE)',
    ]);
    expect(
      problemsOf({ ...mtls, KAFKA_SSL_KEY_PASSPHRASE_FILE: file('wrong-passphrase') }),
    ).toEqual(['KAFKA_SSL_KEY_FILE cannot be decrypted with KAFKA_SSL_KEY_PASSPHRASE_FILE']);
    expect(
      problemsOf({
        ...mtls,
        KAFKA_SSL_KEY_FILE: file('other.key'),
        KAFKA_SSL_KEY_PASSPHRASE_FILE: undefined,
      }),
    ).toEqual([
      'KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE do not belong together (the certificate is not for this key)',
    ]);
  });

  it('never repeats file contents or the passphrase in its messages', () => {
    const error = (() => {
      try {
        return loadConfig({
          ...mtls,
          KAFKA_SSL_KEY_PASSPHRASE_FILE: undefined,
          KAFKA_SSL_KEY_PASSPHRASE: 'wrong-inline-passphrase',
          KAFKA_SSL_CA_FILE: file('garbage'),
        });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).message;
    expect(text).toContain('KAFKA_SSL_KEY_FILE cannot be decrypted with KAFKA_SSL_KEY_PASSPHRASE');
    expect(text).not.toContain('wrong-inline-passphrase');
    expect(text).not.toContain('this is not PEM');
    expect(text).not.toContain('-----');
  });

  it('checks the server name is a host name', () => {
    expect(
      problemsOf({ ...production, KAFKA_SSL: 'true', KAFKA_SSL_SERVERNAME: 'not a host' }),
    ).toEqual(['KAFKA_SSL_SERVERNAME must be a host name']);
  });
});

describe('Kafka SASL settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-sasl-'));
  writeFileSync(join(dir, 'token'), 'a.b.c\n');
  writeFileSync(join(dir, 'client-secret'), 'client-secret-value\n');
  const endpoint = {
    ...production,
    KAFKA_SASL_MECHANISM: 'oauthbearer',
    KAFKA_SASL_OAUTHBEARER_TOKEN_URL: 'https://idp.example/oauth2/token',
    KAFKA_SASL_OAUTHBEARER_CLIENT_ID: 'mailbridge',
    KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: join(dir, 'client-secret'),
  };

  it('takes OAUTHBEARER with a token file, which needs no user name or password', () => {
    const config = loadConfig({
      ...production,
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: join(dir, 'token'),
    });
    // The path, not the token: the token is read at every authentication.
    expect(config.kafka.sasl).toEqual({
      mechanism: 'oauthbearer',
      tokenFile: join(dir, 'token'),
    });
  });

  it('takes OAUTHBEARER with client credentials, the secret from a file and hidden in JSON', () => {
    const config = loadConfig({ ...endpoint, KAFKA_SASL_OAUTHBEARER_SCOPE: 'kafka mail' });
    expect(config.kafka.sasl).toEqual({
      mechanism: 'oauthbearer',
      tokenEndpoint: {
        url: 'https://idp.example/oauth2/token',
        clientId: 'mailbridge',
        clientSecret: 'client-secret-value',
        scope: 'kafka mail',
        clientAuth: 'basic',
      },
    });
    expect(
      loadConfig({ ...endpoint, KAFKA_SASL_OAUTHBEARER_CLIENT_AUTH: 'post' }).kafka.sasl,
    ).toMatchObject({ tokenEndpoint: { clientAuth: 'post' } });
    expect(JSON.stringify(config)).not.toContain('client-secret-value');
  });

  it('wants one token source, readable, with what it needs', () => {
    const oauth = { ...production, KAFKA_SASL_MECHANISM: 'oauthbearer' };
    expect(problemsOf(oauth)).toEqual([
      'KAFKA_SASL_MECHANISM=oauthbearer needs KAFKA_SASL_OAUTHBEARER_TOKEN_FILE or KAFKA_SASL_OAUTHBEARER_TOKEN_URL',
    ]);
    expect(
      problemsOf({ ...endpoint, KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: join(dir, 'token') }),
    ).toEqual([
      'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_TOKEN_URL are both set; set one',
    ]);
    expect(
      problemsOf({ ...oauth, KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: join(dir, 'missing') }),
    ).toEqual(['KAFKA_SASL_OAUTHBEARER_TOKEN_FILE cannot be read (ENOENT)']);
    expect(
      problemsOf({
        ...oauth,
        KAFKA_SASL_OAUTHBEARER_TOKEN_URL: 'http://idp.example/token',
      }),
    ).toEqual([
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL needs KAFKA_SASL_OAUTHBEARER_CLIENT_ID',
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL needs KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET (or KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE)',
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL must use https (http is allowed only for loopback)',
    ]);
    expect(
      loadConfig({ ...endpoint, KAFKA_SASL_OAUTHBEARER_TOKEN_URL: 'http://127.0.0.1:8080/token' })
        .kafka.sasl,
    ).toMatchObject({ tokenEndpoint: { url: 'http://127.0.0.1:8080/token' } });
    expect(problemsOf({ ...endpoint, KAFKA_SASL_OAUTHBEARER_TOKEN_URL: 'idp' })).toEqual([
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL must be an http(s) URL',
    ]);
  });

  it('refuses OAuth settings under another mechanism, which would otherwise be ignored', () => {
    expect(
      problemsOf({
        ...endpoint,
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
        KAFKA_SASL_USERNAME: 'mailbridge',
        KAFKA_SASL_PASSWORD: 'kafka-secret-value',
      }),
    ).toEqual([
      'KAFKA_SASL_OAUTHBEARER_TOKEN_URL, KAFKA_SASL_OAUTHBEARER_CLIENT_ID, KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET need KAFKA_SASL_MECHANISM=oauthbearer',
    ]);
  });

  it('still wants a user name and password for PLAIN and SCRAM', () => {
    expect(problemsOf({ ...production, KAFKA_SASL_MECHANISM: 'plain' })).toEqual([
      'KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM plain or scram-*',
      'KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE) is required with KAFKA_SASL_MECHANISM plain or scram-*',
    ]);
  });
});
