import { Logger } from '@nestjs/common';
import { ConfigResourceTypes, type Kafka, type ResourceConfigQuery } from 'kafkajs';
import { KAFKA_DEFAULT_MAX_MESSAGE_BYTES } from './dead-letter';
import { DeadLetterLimit } from './dead-letter-limit';

/** An admin client whose configs are `configs['<type>:<name>'][configName]`; a missing one fails. */
function fakeKafka(configs: Record<string, Record<string, string>>, connects = true) {
  let reads = 0;
  const admin = {
    connect: () => (connects ? Promise.resolve() : Promise.reject(new Error('broker down'))),
    disconnect: () => Promise.resolve(),
    describeCluster: () => Promise.resolve({ brokers: [{ nodeId: 1 }], controller: 1 }),
    describeConfigs: ({ resources: [query] }: { resources: ResourceConfigQuery[] }) => {
      reads++;
      const value = configs[`${query.type}:${query.name}`]?.[query.configNames![0]];
      if (value === undefined) return Promise.reject(new Error('UNKNOWN_TOPIC_OR_PARTITION'));
      return Promise.resolve({
        resources: [{ configEntries: [{ configName: query.configNames![0], configValue: value }] }],
      });
    },
  };
  const kafka = { admin: () => admin } as unknown as Kafka;
  return { kafka, reads: () => reads };
}

const logger = new Logger('test');
const TOPIC = ConfigResourceTypes.TOPIC;

describe(DeadLetterLimit.name, () => {
  it("reads the topic's max.message.bytes once and keeps it", async () => {
    const broker = fakeKafka({ [`${TOPIC}:dlq`]: { 'max.message.bytes': '10000' } });
    const limit = new DeadLetterLimit(broker.kafka, 'dlq', logger);
    expect(await limit.get()).toBe(10_000);
    expect(await limit.get()).toBe(10_000);
    expect(broker.reads()).toBe(1);
  });

  it("falls back to the broker's message.max.bytes while the topic does not exist", async () => {
    const broker = fakeKafka({
      [`${ConfigResourceTypes.BROKER}:1`]: { 'message.max.bytes': '2000000' },
    });
    expect(await new DeadLetterLimit(broker.kafka, 'dlq', logger).get()).toBe(2_000_000);
  });

  it("falls back to Kafka's default when the cluster cannot be asked", async () => {
    const broker = fakeKafka({}, false);
    expect(await new DeadLetterLimit(broker.kafka, 'dlq', logger).get()).toBe(
      KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    );
  });

  it('reads again on refresh, one read for callers at the same time', async () => {
    const configs = { [`${TOPIC}:dlq`]: { 'max.message.bytes': '10000' } };
    const broker = fakeKafka(configs);
    const limit = new DeadLetterLimit(broker.kafka, 'dlq', logger);
    await limit.get();
    configs[`${TOPIC}:dlq`]['max.message.bytes'] = '3000';
    expect(await Promise.all([limit.refresh(), limit.refresh()])).toEqual([3_000, 3_000]);
    expect(await limit.get()).toBe(3_000);
    expect(broker.reads()).toBe(2);
  });
});
