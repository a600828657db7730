import type { Kafka, Producer } from 'kafkajs';
import { producePaced } from '../../bench/workloads/paced-producer';
import { createTopics, testKafka, uniqueName } from '../support/kafka-helpers';

jest.setTimeout(60_000);

// The latency phase's input: at its rate, every event on the topic once, and one send at a time
// on its idempotent producer (concurrent sends can take each other's sequence numbers on a
// retry, and the broker then acknowledges records it never wrote).
describe('the benchmark’s paced producer', () => {
  const kafka = testKafka();

  /** The real client, whose producers count the sends under way at once. */
  function counting(): { kafka: Kafka; most: () => number; sends: () => number } {
    let now = 0;
    let most = 0;
    let sends = 0;
    const producer = (...args: Parameters<Kafka['producer']>): Producer => {
      const real = kafka.producer(...args);
      const send: Producer['send'] = async (record) => {
        sends++;
        most = Math.max(most, ++now);
        try {
          return await real.send(record);
        } finally {
          now--;
        }
      };
      return Object.assign(Object.create(real) as Producer, { send });
    };
    return {
      kafka: Object.assign(Object.create(kafka) as Kafka, { producer }),
      most: () => most,
      sends: () => sends,
    };
  }

  it('publishes every event once at its rate, one send at a time', async () => {
    const topic = uniqueName('bench-paced');
    await createTopics(kafka, [topic], 3);
    const client = counting();
    const sentAt = new Map<string, number>();

    const started = Date.now();
    await producePaced(client.kafka, topic, 2_000, 1.5, sentAt, 0.5);
    const took = Date.now() - started;

    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const written = offsets.reduce((n, p) => n + Number(p.high), 0);
    expect(written).toBe(4_000); // warm-up included
    expect(sentAt.size).toBe(3_000); // only the measured ones
    expect(client.most()).toBe(1);
    expect(client.sends()).toBeGreaterThan(1); // paced: many sends, not one at the end
    expect(took).toBeGreaterThanOrEqual(1_900);
  });
});
