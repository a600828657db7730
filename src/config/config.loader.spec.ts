import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.error';
import { loadConfig, loadKafkaToolConfig, loadTemplateToolConfig } from './config.loader';

const production = {
  KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092',
  VENDOR_RELAY_ACCESS_TOKEN: 'relay-secret-value',
  VENDOR_API_KEY: 'api-secret-value',
  SENDER_FROM_EMAIL: 'hello@shop.example',
  SUPPRESSION_HASH_KEY: 'suppression-hash-key-secret-value-32',
};

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
}

describe(loadConfig.name, () => {
  it('keeps the stop’s wait for the vendor below the stop’s own bound', () => {
    expect(loadConfig(production).shutdownVendorWaitMs).toBe(5_000);
    expect(loadConfig({ ...production, SHUTDOWN_TIMEOUT_MS: '3000' }).shutdownVendorWaitMs).toBe(
      1_000,
    );
    expect(
      problemsOf({ ...production, SHUTDOWN_TIMEOUT_MS: '4000', SHUTDOWN_VENDOR_WAIT_MS: '4000' }),
    ).toEqual(['SHUTDOWN_VENDOR_WAIT_MS must be below SHUTDOWN_TIMEOUT_MS']);
    expect(
      loadConfig({ ...production, SHUTDOWN_TIMEOUT_MS: '4000', SHUTDOWN_VENDOR_WAIT_MS: '3999' })
        .shutdownVendorWaitMs,
    ).toBe(3_999);
  });

  it('builds a typed config from a complete production environment', () => {
    const config = loadConfig(production);
    expect(config.mode).toBe('production');
    expect(config.kafka.brokers).toEqual(['kafka-1:9092', 'kafka-2:9092']);
    expect(config.vendor.relayBaseUrl).toBe('https://api.tinyemail.com/relay/v1');
    expect(config.vendor.baseUrl).toBe('https://api.tinyemail.com/v1');
    expect(config.vendor.relayTokenForm).toBe('bare');
    expect(config.topics.userSignedUp).toBe('user.signed_up.v1');
    expect(config.kafka.createTopics).toBe(false);
    expect(config.httpPort).toBe(3000);
  });

  it('defaults to production, where brokers, keys and sender are required, and lists them all', () => {
    const problems = problemsOf({});
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('KAFKA_BROKERS'),
        expect.stringContaining('VENDOR_RELAY_ACCESS_TOKEN'),
        expect.stringContaining('VENDOR_API_KEY'),
        expect.stringContaining('SENDER_FROM_EMAIL'),
      ]),
    );
  });

  it('names every malformed variable and never echoes a value', () => {
    const error = (() => {
      try {
        return loadConfig({
          ...production,
          KAFKA_BROKERS: 'not a broker list',
          VENDOR_RELAY_BASE_URL: 'relay.example/v1',
          HTTP_PORT: 'eighty',
          VENDOR_RELAY_TOKEN_FORM: 'Bearer',
        });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).message;
    for (const name of [
      'KAFKA_BROKERS',
      'VENDOR_RELAY_BASE_URL',
      'HTTP_PORT',
      'VENDOR_RELAY_TOKEN_FORM',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain('relay-secret-value');
    expect(text).not.toContain('api-secret-value');
    expect(text).not.toContain('relay.example');
  });

  it('assumes the vendor escapes merged attribute values unless told it does not', () => {
    expect(loadConfig(production).vendor.mergeEscapesHtml).toBe(true);
    expect(
      loadConfig({ ...production, VENDOR_MERGE_ESCAPES_HTML: 'false' }).vendor.mergeEscapesHtml,
    ).toBe(false);
    expect(problemsOf({ ...production, VENDOR_MERGE_ESCAPES_HTML: 'no' })).toEqual([
      expect.stringContaining('VENDOR_MERGE_ESCAPES_HTML'),
    ]);
  });

  it('refuses plain http to a non-loopback vendor unless the host is allowed', () => {
    const env = { ...production, VENDOR_BASE_URL: 'http://vendor.internal/v1' };
    expect(problemsOf(env)).toEqual([expect.stringContaining('VENDOR_BASE_URL must use https')]);
    expect(
      loadConfig({ ...env, VENDOR_ALLOW_INSECURE_HOSTS: 'vendor.internal' }).vendor.baseUrl,
    ).toBe('http://vendor.internal/v1');
    expect(
      loadConfig({ ...production, VENDOR_BASE_URL: 'http://127.0.0.1:8025/v1' }).vendor.baseUrl,
    ).toBe('http://127.0.0.1:8025/v1');
  });

  it('reads keys from *_FILE variables, for container secrets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-config-'));
    writeFileSync(join(dir, 'relay'), 'from-file-relay\n');
    writeFileSync(join(dir, 'api'), 'from-file-api');
    const config = loadConfig({
      ...production,
      VENDOR_RELAY_ACCESS_TOKEN: undefined,
      VENDOR_API_KEY: undefined,
      VENDOR_RELAY_ACCESS_TOKEN_FILE: join(dir, 'relay'),
      VENDOR_API_KEY_FILE: join(dir, 'api'),
    });
    expect(config.vendor.relayAccessToken).toBe('from-file-relay');
    expect(config.vendor.apiKey).toBe('from-file-api');
  });

  it('reports an unreadable key file and a key given twice', () => {
    const problems = problemsOf({
      ...production,
      VENDOR_API_KEY_FILE: '/nonexistent/key',
      VENDOR_RELAY_ACCESS_TOKEN_FILE: '/nonexistent/relay',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'VENDOR_RELAY_ACCESS_TOKEN and VENDOR_RELAY_ACCESS_TOKEN_FILE are both set; set one',
        'VENDOR_API_KEY and VENDOR_API_KEY_FILE are both set; set one',
      ]),
    );
    expect(
      problemsOf({
        ...production,
        VENDOR_API_KEY: undefined,
        VENDOR_API_KEY_FILE: '/nonexistent/key',
      }),
    ).toEqual(['VENDOR_API_KEY_FILE cannot be read (ENOENT)']);
  });

  it('local mode runs on embedded defaults: loopback broker and the sandbox', () => {
    const config = loadConfig({ MAILBRIDGE_MODE: 'local' });
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092']);
    expect(config.vendor.relayBaseUrl).toBe('http://127.0.0.1:8025/relay/v1');
    expect(config.kafka.createTopics).toBe(true);
  });

  it('keeps keys out of JSON renderings of the config', () => {
    const json = JSON.stringify(loadConfig(production));
    expect(json).not.toContain('relay-secret-value');
    expect(json).not.toContain('api-secret-value');
    expect(json).toContain('[redacted]');
  });

  it('configures TLS and SASL for the broker, requiring credentials and hiding the password', () => {
    expect(problemsOf({ ...production, KAFKA_SASL_MECHANISM: 'scram-sha-512' })).toEqual(
      expect.arrayContaining([
        expect.stringContaining('KAFKA_SASL_USERNAME'),
        expect.stringContaining('KAFKA_SASL_PASSWORD'),
      ]),
    );
    const config = loadConfig({
      ...production,
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'mailbridge',
      KAFKA_SASL_PASSWORD: 'kafka-secret-value',
    });
    expect(config.kafka.ssl).toEqual({});
    expect(config.kafka.sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'mailbridge',
      password: 'kafka-secret-value',
    });
    expect(JSON.stringify(config)).not.toContain('kafka-secret-value');
  });

  it('names every key it holds as a secret, for the logger to scrub', () => {
    const config = loadConfig({
      ...production,
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'mailbridge',
      KAFKA_SASL_PASSWORD: 'kafka-secret-value',
      REDIS_URL: 'redis://:redis-secret-value@127.0.0.1:6379',
    });
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        'relay-secret-value',
        'api-secret-value',
        'kafka-secret-value',
        'redis-secret-value',
      ]),
    );
  });

  it('starts a new group at the end of its topics in production and at the start locally', () => {
    expect(loadConfig(production).consumer.startFrom).toBe('latest');
    expect(loadConfig({ MAILBRIDGE_MODE: 'local' }).consumer.startFrom).toBe('earliest');
    expect(loadConfig({ ...production, CONSUMER_START_FROM: 'earliest' }).consumer.startFrom).toBe(
      'earliest',
    );
    expect(problemsOf({ ...production, CONSUMER_START_FROM: 'beginning' })).toEqual([
      expect.stringContaining('CONSUMER_START_FROM'),
    ]);
  });

  it('publishes results as binary-mode CloudEvents from source mailbridge unless set', () => {
    expect(loadConfig(production).results).toEqual({ mode: 'binary', source: 'mailbridge' });
    expect(
      loadConfig({
        ...production,
        RESULT_EVENT_MODE: 'structured',
        RESULT_EVENT_SOURCE: '//shop.example/services/mailbridge',
      }).results,
    ).toEqual({ mode: 'structured', source: '//shop.example/services/mailbridge' });
    expect(
      problemsOf({ ...production, RESULT_EVENT_MODE: 'json', RESULT_EVENT_SOURCE: 'mail bridge' }),
    ).toEqual([
      expect.stringContaining('RESULT_EVENT_MODE'),
      expect.stringContaining('RESULT_EVENT_SOURCE must be a URI-reference'),
    ]);
  });

  it('sends late orders to a follow-up list unless CONTACT_LIST_LATE_POLICY says next-window', () => {
    expect(loadConfig(production).batching.contactListLatePolicy).toBe('follow-up');
    const next = loadConfig({ ...production, CONTACT_LIST_LATE_POLICY: 'next-window' });
    expect(next.batching.contactListLatePolicy).toBe('next-window');
    expect(problemsOf({ ...production, CONTACT_LIST_LATE_POLICY: 'drop' })).toEqual([
      expect.stringContaining('CONTACT_LIST_LATE_POLICY'),
    ]);
  });

  it('reads the liveness stall limit, five minutes unless set', () => {
    expect(loadConfig(production).consumer.livenessStallMs).toBe(300_000);
    expect(loadConfig({ ...production, LIVENESS_STALL_MS: '60000' }).consumer.livenessStallMs).toBe(
      60_000,
    );
    expect(problemsOf({ ...production, LIVENESS_STALL_MS: '10' })).toEqual([
      expect.stringContaining('LIVENESS_STALL_MS'),
    ]);
  });

  it('reads the Kafka session timeout and the partitions handled at once: 30 s and 16 unless set', () => {
    const defaults = loadConfig(production);
    expect(defaults.kafka.sessionTimeoutMs).toBe(30_000);
    expect(defaults.consumer.partitionsConcurrently).toBe(16);
    const set = loadConfig({
      ...production,
      KAFKA_SESSION_TIMEOUT_MS: '10000',
      CONSUMER_PARTITIONS_CONCURRENTLY: '4',
    });
    expect(set.kafka.sessionTimeoutMs).toBe(10_000);
    expect(set.consumer.partitionsConcurrently).toBe(4);
    expect(
      problemsOf({
        ...production,
        KAFKA_SESSION_TIMEOUT_MS: '3000',
        CONSUMER_PARTITIONS_CONCURRENTLY: '0',
      }),
    ).toEqual([
      expect.stringContaining('KAFKA_SESSION_TIMEOUT_MS'),
      expect.stringContaining('CONSUMER_PARTITIONS_CONCURRENTLY'),
    ]);
  });

  it('paces contact lists at the documented 60 a minute and campaign sends not at all, unless set', () => {
    expect(loadConfig(production).requestBudget).toEqual({
      contacts: { rate: { count: 60, periodMs: 60_000 }, burst: 1 },
      relay: { rate: undefined, burst: 1 },
      marginMs: 1000,
    });
    const set = loadConfig({
      ...production,
      VENDOR_CONTACTS_RATE: '120/min',
      VENDOR_CONTACTS_BURST: '5',
      VENDOR_RELAY_RATE: '10/s',
      VENDOR_RATE_MARGIN_MS: '50',
    }).requestBudget;
    expect(set.contacts).toEqual({ rate: { count: 120, periodMs: 60_000 }, burst: 5 });
    expect(set.relay.rate).toEqual({ count: 10, periodMs: 1_000 });
    expect(
      loadConfig({ ...production, VENDOR_CONTACTS_RATE: 'off' }).requestBudget.contacts.rate,
    ).toBeUndefined();
  });

  it('names a malformed or contradictory request budget setting', () => {
    expect(
      problemsOf({
        ...production,
        VENDOR_CONTACTS_RATE: '60 per minute',
        VENDOR_RELAY_RATE: '0/s',
      }),
    ).toEqual([
      'VENDOR_CONTACTS_RATE must be off or <count>/<s|min|h>, such as 60/min',
      'VENDOR_RELAY_RATE must be off or <count>/<s|min|h>, such as 10/s',
    ]);
    expect(problemsOf({ ...production, VENDOR_CONTACTS_BURST: '0' })).toEqual([
      'VENDOR_CONTACTS_BURST must not be less than 1',
    ]);
    expect(problemsOf({ ...production, VENDOR_CONTACTS_BURST: '61' })).toEqual([
      'VENDOR_CONTACTS_BURST must not exceed the count of VENDOR_CONTACTS_RATE (60)',
    ]);
    expect(problemsOf({ ...production, VENDOR_RELAY_RATE: '10/s' })).toEqual([
      'VENDOR_RATE_MARGIN_MS must be shorter than the period of VENDOR_RELAY_RATE (1000 ms)',
    ]);
  });

  it('writes dates in UTC unless TEMPLATE_TIME_ZONE names a known IANA zone, and refuses another', () => {
    expect(loadConfig(production).templates.timeZone).toBe('UTC');
    expect(loadConfig({ ...production, TEMPLATE_TIME_ZONE: 'europe/berlin' }).templates).toEqual({
      timeZone: 'Europe/Berlin',
    });
    for (const zone of ['Mars/Olympus_Mons', '+01:00', 'Europe/Berlin ']) {
      expect(problemsOf({ ...production, TEMPLATE_TIME_ZONE: zone })).toEqual([
        'TEMPLATE_TIME_ZONE must be an IANA time zone name, such as Europe/Berlin or UTC',
      ]);
    }
  });

  it('reads the SASL password from a file too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-config-'));
    writeFileSync(join(dir, 'sasl'), 'from-file-sasl\n');
    const config = loadConfig({
      ...production,
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'mailbridge',
      KAFKA_SASL_PASSWORD_FILE: join(dir, 'sasl'),
    });
    expect(config.kafka.sasl).toMatchObject({ password: 'from-file-sasl' });
  });

  it('finds Redis through Sentinels when REDIS_SENTINELS names them, with passwords from files', () => {
    expect(loadConfig(production).idempotency.redisSentinels).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-config-'));
    writeFileSync(join(dir, 'redis'), 'p@ss:w/rd#1\n');
    writeFileSync(join(dir, 'sentinel'), 'sentinel-secret-value\n');
    const config = loadConfig({
      ...production,
      REDIS_URL: 'rediss://mailbridge@redis/2',
      REDIS_SENTINELS: 'sentinel-a:26379,10.0.0.7:26380',
      REDIS_PASSWORD_FILE: join(dir, 'redis'),
      REDIS_SENTINEL_PASSWORD_FILE: join(dir, 'sentinel'),
    });
    const { idempotency } = config;
    expect(idempotency.redisSentinels).toEqual([
      { host: 'sentinel-a', port: 26379 },
      { host: '10.0.0.7', port: 26380 },
    ]);
    expect(idempotency.redisSentinelName).toBe('mymaster');
    expect(idempotency.redisSentinelPassword).toBe('sentinel-secret-value');
    const url = new URL(idempotency.redisUrl);
    expect([url.protocol, url.username, decodeURIComponent(url.password), url.pathname]).toEqual([
      'rediss:',
      'mailbridge',
      'p@ss:w/rd#1',
      '/2',
    ]);
    expect(config.secrets).toEqual(
      expect.arrayContaining(['p@ss:w/rd#1', 'sentinel-secret-value']),
    );
    const json = JSON.stringify(config);
    expect(json).not.toContain('sentinel-secret-value');
    expect(json).not.toContain('w%2Frd');
  });

  it('waits for one replica under Sentinel and none without, unless told; a shortfall waits', () => {
    const sentinels = { ...production, REDIS_SENTINELS: 'sentinel-a:26379' };
    expect(loadConfig(production).idempotency.redisReplicas).toEqual({
      replicas: 0,
      timeoutMs: 500,
      onShortfall: 'wait',
    });
    expect(loadConfig(sentinels).idempotency.redisReplicas.replicas).toBe(1);
    expect(
      loadConfig({ ...sentinels, REDIS_WAIT_REPLICAS: '2', REDIS_REPLICA_SHORTFALL: 'proceed' })
        .idempotency.redisReplicas,
    ).toMatchObject({ replicas: 2, onShortfall: 'proceed' });
    expect(
      loadConfig({ ...sentinels, REDIS_WAIT_REPLICAS: '0' }).idempotency.redisReplicas,
    ).toMatchObject({
      replicas: 0,
    });
    expect(problemsOf({ ...production, REDIS_WAIT_TIMEOUT_MS: '5000' })).toEqual([
      expect.stringContaining('REDIS_WAIT_TIMEOUT_MS'),
    ]);
  });

  it('starts from the nodes of a Redis Cluster when REDIS_CLUSTER_NODES names them', () => {
    expect(loadConfig(production).idempotency.redisClusterNodes).toBeUndefined();
    const config = loadConfig({
      ...production,
      REDIS_URL: 'rediss://mailbridge:secret-cluster-pass@unused',
      REDIS_CLUSTER_NODES: 'redis-0.redis:6379,10.0.0.8:7000',
    });
    expect(config.idempotency.redisClusterNodes).toEqual([
      { host: 'redis-0.redis', port: 6379 },
      { host: '10.0.0.8', port: 7000 },
    ]);
    expect(config.secrets).toContain('secret-cluster-pass');
    expect(config.idempotency.redisReplicas.replicas).toBe(1);
    expect(problemsOf({ ...production, REDIS_CLUSTER_NODES: 'redis-0' })).toEqual([
      'REDIS_CLUSTER_NODES must be host:port[,host:port…]',
    ]);
    expect(
      problemsOf({ ...production, REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' }),
    ).toEqual(['REDIS_SENTINELS and REDIS_CLUSTER_NODES cannot both be set: pick one topology']);
  });

  it('names a malformed Sentinel list or primary name', () => {
    expect(problemsOf({ ...production, REDIS_SENTINELS: 'sentinel-a' })).toEqual([
      'REDIS_SENTINELS must be host:port[,host:port…]',
    ]);
    expect(problemsOf({ ...production, REDIS_SENTINEL_NAME: 'my master' })).toEqual([
      'REDIS_SENTINEL_NAME may hold letters, digits and _ . -',
    ]);
  });
});

describe(loadKafkaToolConfig.name, () => {
  it('needs only the broker settings: no vendor key, no sender, and reads no other file', () => {
    const config = loadKafkaToolConfig({
      KAFKA_BROKERS: 'kafka-1:9092',
      TOPIC_DEAD_LETTER: 'shop.dead-letters',
      VENDOR_API_KEY_FILE: '/nonexistent/vendor-key',
      VENDOR_RELAY_BASE_URL: 'http://vendor.example/relay/v1',
    });
    expect(config.kafka.brokers).toEqual(['kafka-1:9092']);
    expect(config.kafka.groupId).toBe('mailbridge');
    expect(config.topics.deadLetter).toBe('shop.dead-letters');
    expect(config.topics.userSignedUp).toBe('user.signed_up.v1');
    expect(Object.keys(config)).toEqual(['kafka', 'topics']);
  });

  it('validates the Kafka and topic settings as the service does', () => {
    expect(() => loadKafkaToolConfig({})).toThrow(/KAFKA_BROKERS is required/);
    let problems: string[] = [];
    try {
      loadKafkaToolConfig({
        KAFKA_BROKERS: 'kafka-1:9092',
        KAFKA_SASL_MECHANISM: 'plain',
        TOPIC_ORDER_PLACED: 'not a topic',
      });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems.join('\n')).toMatch(/KAFKA_SASL_USERNAME is required/);
    expect(problems.join('\n')).toMatch(/TOPIC_ORDER_PLACED/);
    expect(problems.join('\n')).not.toMatch(/VENDOR|SENDER/);
  });
});

describe(loadTemplateToolConfig.name, () => {
  it('reads the settings of the copy and nothing of the broker, Redis or vendor', () => {
    const config = loadTemplateToolConfig({
      MAILBRIDGE_MODE: 'production',
      SENDER_FROM_NAME: 'Bread & Butter',
      VENDOR_MERGE_ESCAPES_HTML: 'false',
      TEMPLATE_TIME_ZONE: 'Asia/Tokyo',
      KAFKA_BROKERS: 'not a broker list',
      REDIS_URL: 'nonsense',
      VENDOR_API_KEY_FILE: '/nonexistent/vendor-key',
    });
    expect(config.sender.from).toEqual({ name: 'Bread & Butter', email: 'hello@mailbridge.local' });
    expect(config.vendor.mergeEscapesHtml).toBe(false);
    expect(config.templates.timeZone).toBe('Asia/Tokyo');
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('validates the settings of the copy as the service does', () => {
    expect(() => loadTemplateToolConfig({ VENDOR_MERGE_ESCAPES_HTML: 'sometimes' })).toThrow(
      /VENDOR_MERGE_ESCAPES_HTML/,
    );
    expect(() => loadTemplateToolConfig({ TEMPLATE_TIME_ZONE: 'Mars/Olympus' })).toThrow(
      /TEMPLATE_TIME_ZONE must be an IANA time zone/,
    );
  });
});
