import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Partitioners, type Kafka } from 'kafkajs';
import { loadConfig } from '../../src/config/config.loader';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { createKafka } from '../../src/kafka/kafka.provider';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PrivateBroker } from '../support/private-broker';
import { PipelineFixture } from '../support/service-harness';
import { logCapture } from '../support/log-capture';

jest.setTimeout(180_000);

const USER = 'mailbridge';
const PASSWORD = 'scram-password-of-the-test';

/**
 * One broker with all secured listeners (an SSL one that requires a client certificate, a
 * SASL_PLAINTEXT one with PLAIN, SCRAM and unsecured OAUTHBEARER); its PLAINTEXT listener serves
 * the fixture (topics, the collector of results). The service and the project's own kafkajs
 * client (`createKafka`) get their settings from environment variables, as in production.
 */
describe('Kafka security against a real broker', () => {
  let broker: PrivateBroker;
  let fixture: PipelineFixture;
  const file = (name: string) => join(broker.tlsDir, name);

  beforeAll(async () => {
    broker = await PrivateBroker.start({ ssl: true, saslUsers: { [USER]: PASSWORD } });
    fixture = await new PipelineFixture(broker.kafka()).start();
  });

  afterAll(async () => {
    await fixture?.stop();
    await broker?.destroy();
  });

  /** The service's environment for one listener: the fixture's topics, group and sandbox. */
  const envFor = (overrides: Record<string, string>) =>
    fixture.env({ KAFKA_BROKERS: broker.sslAddress!, ...overrides });

  const mtls = () => ({
    KAFKA_BROKERS: broker.sslAddress!,
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: file('ca.pem'),
    KAFKA_SSL_CERT_FILE: file('client.pem'),
    KAFKA_SSL_KEY_FILE: file('client.enc.key'),
    KAFKA_SSL_KEY_PASSPHRASE_FILE: file('client-key-passphrase'),
  });

  const scram = (mechanism: string, password = PASSWORD) => ({
    KAFKA_BROKERS: broker.saslAddress!,
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: USER,
    KAFKA_SASL_PASSWORD: password,
  });

  /** The project's client from these settings, asked once (no retries) to describe the cluster. */
  async function describeWith(overrides: Record<string, string>): Promise<number[]> {
    const config = loadConfig(envFor(overrides));
    const admin = createKafka(config, { retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      const { brokers } = await admin.describeCluster();
      return brokers.map((b) => b.port);
    } finally {
      await admin.disconnect();
    }
  }

  /** Publishes one sign-up with the project's client from these settings; resolves to its id. */
  async function publishWith(kafka: Kafka): Promise<string> {
    const event = signUp(1, uniqueName('secured'));
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      await producer.send({
        topic: fixture.topics.TOPIC_USER_SIGNED_UP,
        acks: -1,
        messages: [{ key: event.data.userId, value: JSON.stringify(event) }],
      });
    } finally {
      await producer.disconnect();
    }
    return event.id;
  }

  const answered = (eventId: string) =>
    waitFor(
      () =>
        fixture.collector
          .results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT)
          .find((r) => r.sourceeventid === eventId),
      { timeoutMs: 60_000, what: `the result of ${eventId}` },
    );

  describe('mTLS (client certificate required)', () => {
    it('runs a sign-up through the service end to end over mTLS, key decrypted with its passphrase', async () => {
      const app = await fixture.startService(mtls());
      try {
        const eventId = await publishWith(createKafka(loadConfig(envFor(mtls()))));
        const result = await answered(eventId);
        expect(result.data.sourceEventId).toBe(eventId);
      } finally {
        await fixture.stopService(app);
      }
    });

    it('is refused without a client certificate', async () => {
      await expect(
        describeWith({
          KAFKA_BROKERS: broker.sslAddress!,
          KAFKA_SSL: 'true',
          KAFKA_SSL_CA_FILE: file('ca.pem'),
        }),
      ).rejects.toThrow(/certificate|Closed connection|ECONNRESET/);
    });

    it('verifies the broker: not without the CA, and not under another name; KAFKA_SSL_SERVERNAME names it', async () => {
      const withoutCa: Record<string, string> = mtls();
      delete withoutCa.KAFKA_SSL_CA_FILE;
      await expect(describeWith(withoutCa)).rejects.toThrow(/self-signed|unable to verify|issuer/i);
      await expect(
        describeWith({ ...mtls(), KAFKA_SSL_SERVERNAME: 'kafka.elsewhere.example' }),
      ).rejects.toThrow(/altnames|Hostname\/IP does not match/i);
      // The certificate is for 127.0.0.1 and localhost; the bootstrap address is the IP.
      await expect(describeWith({ ...mtls(), KAFKA_SSL_SERVERNAME: 'localhost' })).resolves.toEqual(
        [Number(broker.sslAddress!.split(':')[1])],
      );
    });
  });

  describe('SASL SCRAM and PLAIN', () => {
    it('runs a sign-up through the service end to end with SCRAM-SHA-256', async () => {
      const app = await fixture.startService(scram('scram-sha-256'));
      try {
        const eventId = await publishWith(createKafka(loadConfig(envFor(scram('scram-sha-256')))));
        const result = await answered(eventId);
        expect(result.data.sourceEventId).toBe(eventId);
      } finally {
        await fixture.stopService(app);
      }
    });

    it('connects with SCRAM-SHA-512 and PLAIN too, and over TLS (SASL_SSL)', async () => {
      const port = Number(broker.saslAddress!.split(':')[1]);
      await expect(describeWith(scram('scram-sha-512'))).resolves.toEqual([port]);
      await expect(describeWith(scram('plain'))).resolves.toEqual([port]);
      const overTls = {
        ...scram('scram-sha-512'),
        KAFKA_BROKERS: broker.saslSslAddress!,
        KAFKA_SSL: 'true',
        KAFKA_SSL_CA_FILE: file('ca.pem'),
      };
      await expect(describeWith(overTls)).resolves.toEqual([
        Number(broker.saslSslAddress!.split(':')[1]),
      ]);
      await expect(describeWith({ ...overTls, KAFKA_SASL_PASSWORD: 'wrong' })).rejects.toThrow(
        /SASL SCRAM SHA512 authentication failed/,
      );
    });

    it('refuses a wrong password, and neither the error nor anything logged holds it', async () => {
      const wrong = 'wrong-password-never-logged';
      // The service's log, held back rather than printed: a debug-level start is long, and the
      // test says what matters.
      const log = logCapture();
      let error: Error | undefined;
      try {
        // LOG_LEVEL=debug: every line the service and kafkajs write is looked at.
        await fixture.startService(
          { ...scram('scram-sha-256', wrong), LOG_LEVEL: 'debug' },
          { logTo: log.destination },
        );
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).toMatch(/SASL SCRAM SHA256 authentication failed/);
      expect(error?.message).not.toContain(wrong);
      const logs = log.text();
      expect(logs).toMatch(/authentication failed/i);
      expect(logs).not.toContain(wrong);
    });
  });

  describe('SASL OAUTHBEARER (the broker runs Kafka’s unsecured validator)', () => {
    /** An unsigned JWT, which the unsecured validator accepts while `exp` is ahead. */
    const token = (expiresInS: number) => {
      const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      return `${part({ alg: 'none' })}.${part({ sub: 'mailbridge', iat: now, exp: now + expiresInS })}.`;
    };
    const oauth = (overrides: Record<string, string>) => ({
      KAFKA_BROKERS: broker.saslAddress!,
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      ...overrides,
    });

    it('authenticates with the token of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE, read at each connection', async () => {
      const path = join(broker.tlsDir, 'oauth-token');
      writeFileSync(path, 'not-a-token');
      const settings = oauth({ KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: path });
      await expect(describeWith(settings)).rejects.toThrow();
      writeFileSync(path, token(600));
      await expect(describeWith(settings)).resolves.toHaveLength(1);
    });

    it('authenticates with a token from the token endpoint (client credentials)', async () => {
      const requests: string[] = [];
      const server: Server = createServer((req, res) => {
        requests.push(req.headers.authorization ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ access_token: token(600), token_type: 'bearer', expires_in: 600 }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        await expect(
          describeWith(
            oauth({
              KAFKA_SASL_OAUTHBEARER_TOKEN_URL: `http://127.0.0.1:${port}/token`,
              KAFKA_SASL_OAUTHBEARER_CLIENT_ID: 'mailbridge',
              KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: 'client-secret-of-the-test',
            }),
          ),
        ).resolves.toHaveLength(1);
        expect(requests.length).toBeGreaterThanOrEqual(1);
        expect(requests[0]).toMatch(/^Basic /);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
