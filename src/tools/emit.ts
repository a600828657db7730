import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { USER_SIGNED_UP_V1, type UserSignedUpV1 } from '../contracts/user-signed-up.v1';

/**
 * `npm run emit -- [--count N] [--brokers host:port] [--topic T]`: publishes sample
 * `user.signed_up.v1` events, for trying the service by hand.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1' },
      brokers: { type: 'string', default: '127.0.0.1:9092' },
      topic: { type: 'string', default: USER_SIGNED_UP_V1 },
    },
  });
  const count = Number(values.count);
  const kafka = new Kafka({
    clientId: 'mailbridge-emit',
    brokers: values.brokers.split(','),
    logLevel: logLevel.WARN,
  });
  const producer = kafka.producer();
  await producer.connect();
  const events: UserSignedUpV1[] = Array.from({ length: count }, (_, i) => {
    const userId = `u-${randomUUID().slice(0, 8)}`;
    return {
      id: randomUUID(),
      type: USER_SIGNED_UP_V1,
      time: new Date().toISOString(),
      source: 'mailbridge-emit',
      data: {
        userId,
        email: `user${i + 1}.${userId}@example.com`,
        name: `Sample User ${i + 1}`,
        plan: 'trial',
      },
    };
  });
  await producer.send({
    topic: values.topic,
    messages: events.map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
  });
  await producer.disconnect();
  for (const e of events)
    console.log(`sent ${e.type} ${e.id} (${e.data.email}) to ${values.topic}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
