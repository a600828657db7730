import type { Kafka, ProducerBatch } from 'kafkajs';
import { loadConfig } from '../config/config.loader';
import { ResultPublisher } from './result.publisher';

/** A producer that records what it is asked to send; the publisher's own Kafka boundary. */
function fakeKafka(batches: ProducerBatch[]): Kafka {
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: (batch: ProducerBatch) => {
      batches.push(batch);
      return Promise.resolve([]);
    },
  };
  return { producer: () => producer } as unknown as Kafka;
}

describe(ResultPublisher.name, () => {
  const config = loadConfig({ MAILBRIDGE_MODE: 'local' });

  it('sends records published together in few produce requests, each well under 1 MiB', async () => {
    const batches: ProducerBatch[] = [];
    const publisher = new ResultPublisher(fakeKafka(batches), config);
    const value = { padding: 'x'.repeat(1000) };
    await Promise.all(
      Array.from({ length: 1500 }, (_, i) =>
        publisher.publish(i % 2 ? 'a' : 'b', {
          key: `k${i}`,
          value,
          headers: { 'correlation-id': `e${i}` },
        }),
      ),
    );
    const sizes = batches.map((b) =>
      (b.topicMessages ?? [])
        .flatMap((t) => t.messages)
        .reduce((n, m) => n + String(m.value).length, 0),
    );
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.length).toBeLessThan(20);
    expect(Math.max(...sizes)).toBeLessThan(512 * 1024);
    const all = batches.flatMap((b) => (b.topicMessages ?? []).flatMap((t) => t.messages));
    expect(all).toHaveLength(1500);
    expect(all[0].headers).toEqual({ 'content-type': 'application/json', 'correlation-id': 'e0' });
  });

  it('rejects every record of a failed produce request, so none is committed', async () => {
    const kafka = {
      producer: () => ({
        connect: () => Promise.resolve(),
        sendBatch: () => Promise.reject(new Error('broker down')),
      }),
    } as unknown as Kafka;
    const publisher = new ResultPublisher(kafka, config);
    await expect(publisher.publish('a', { key: null, value: {} })).rejects.toThrow('broker down');
  });
});
