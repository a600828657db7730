import { SandboxServer } from '../src/sandbox/sandbox.server';
import { order, signUp } from './support/events';
import { freePort } from './support/free-port';
import {
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './support/kafka-helpers';
import { startService, terminate, type Service } from './support/service-process';

jest.setTimeout(120_000);

const RELAY_KEY = 'relay-key-that-must-not-be-logged';
const API_KEY = 'contacts-key-that-must-not-be-logged';

type Line = Record<string, unknown>;

/** Every line of the output, parsed; a line that is not a JSON object is kept as `{ text }`. */
function lines(output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed === 'object' && parsed !== null ? (parsed as Line) : { text: line };
      } catch {
        return { text: line };
      }
    });
}

describe('the service log (LOG_FORMAT=json, the production default)', () => {
  let sandbox: SandboxServer;
  let service: Service | undefined;
  afterEach(async () => {
    service?.child.kill('SIGKILL');
    await sandbox?.close();
  });

  it('is one JSON object per line; each event has a line with its ids, and no address or key is written', async () => {
    sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
    const url = await sandbox.listen(0);
    const kafka = testKafka();
    const users = uniqueName('user.signed_up.v1');
    const orders = uniqueName('order.placed.v1');
    const groupId = uniqueName('mailbridge');
    await createTopics(kafka, [users, orders], 3, [groupId]);
    const welcome = signUp(1);
    const placed = order(2);
    await produce(kafka, users, [{ key: welcome.data.userId, value: JSON.stringify(welcome) }]);
    await produce(kafka, orders, [{ key: placed.data.orderId, value: JSON.stringify(placed) }]);
    // A record that is not an event, after the sign-up in its partition: its dead letter gets a
    // line of its own.
    await produce(kafka, users, [{ key: welcome.data.userId, value: '{"id": "broken' }]);

    service = startService({
      MAILBRIDGE_MODE: 'production',
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_GROUP_ID: groupId,
      KAFKA_CREATE_TOPICS: 'true',
      CONSUMER_START_FROM: 'earliest',
      TOPIC_USER_SIGNED_UP: users,
      TOPIC_ORDER_PLACED: orders,
      TOPIC_CAMPAIGN_SENT: uniqueName('sent'),
      TOPIC_CONTACT_LIST_CREATED: uniqueName('created'),
      TOPIC_DISPATCH_FAILED: uniqueName('failed'),
      TOPIC_DEAD_LETTER: uniqueName('dlq'),
      VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
      VENDOR_BASE_URL: `${url}/v1`,
      VENDOR_RELAY_ACCESS_TOKEN: RELAY_KEY,
      VENDOR_API_KEY: API_KEY,
      SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
      SENDER_FROM_EMAIL: 'hello@shop.example',
      IDEMPOTENCY_STORE: 'memory',
      CONTACT_LIST_WINDOW_MS: '1000',
      HTTP_PORT: String(await freePort()),
      LOG_LEVEL: 'log',
      // A process warning of Node's own, emitted when the stop begins (after start-up).
      NODE_OPTIONS: `--import=data:text/javascript,process.once('SIGTERM',()=>process.emitWarning('probe','ProbeWarning'))`,
    });
    const running = service;
    const lineOf = (eventId: string, template: string) =>
      lines(running.stdout()).find((l) => l.eventId === eventId && l.template === template);
    const what = 'the log lines of both events and of the dead letter';
    await waitFor(
      () =>
        lineOf(welcome.id, 'welcome') &&
        lineOf(placed.id, 'order-confirmation') &&
        lineOf(placed.id, 'new-customers') &&
        lines(running.stdout()).find((l) => l.errorCode === 'UNPARSEABLE'),
      { what, timeoutMs: 60_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the log so far:\n${running.output()}`);
    });
    const { code } = await terminate(running);
    expect(code).toBe(0);

    const all = lines(running.stdout());
    expect(all.filter((l) => 'text' in l)).toEqual([]); // every line is JSON
    expect(lineOf(welcome.id, 'welcome')).toMatchObject({
      level: 'info',
      name: 'mailbridge',
      msg: 'sent',
      eventId: welcome.id,
      eventType: 'user.signed_up.v1',
      topic: users,
      partition: expect.any(Number) as number,
      offset: '0',
      template: 'welcome',
      status: 'sent',
      requestIds: [expect.any(String)],
    });
    // Stored in its contact-list window (the list, and its own log line, come when it closes).
    expect(lineOf(placed.id, 'new-customers')).toMatchObject({
      msg: 'in-window',
      eventType: 'order.placed.v1',
      topic: orders,
      status: 'in-window',
      list: expect.stringMatching(/^new-customers-/) as string,
    });
    expect(all.find((l) => l.errorCode === 'UNPARSEABLE')).toMatchObject({
      level: 'warn',
      topic: users,
      offset: '1',
      msg: 'dead-lettered: UNPARSEABLE',
    });
    // Node's process warnings are log lines too, not text on stderr.
    expect(all.find((l) => l.context === 'node')).toMatchObject({
      level: 'warn',
      msg: 'ProbeWarning: probe',
    });
    expect(running.output()).not.toContain('(node:');
    // A healthy start and stop: no error at all, kafkajs' retried responses included.
    expect(all.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
    const output = running.output();
    for (const address of [welcome.data.email, placed.data.customer.email]) {
      expect(output).not.toContain(address);
    }
    expect(output).not.toContain(RELAY_KEY);
    expect(output).not.toContain(API_KEY);
  });
});
