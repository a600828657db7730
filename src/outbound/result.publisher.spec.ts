import { Tracing } from '../tracing/tracing';
import {
  KafkaJSNonRetriableError,
  KafkaJSProtocolError,
  type Kafka,
  type ProducerBatch,
  type ProducerRecord,
} from 'kafkajs';
import { loadConfig } from '../config/config.loader';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InvalidEventError } from '../inbound/invalid-event.error';
import type { DeadLetterReference } from './dead-letter';
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

/** kafkajs' rejection of a record over the topic's `max.message.bytes`, as its retrier wraps it. */
function messageTooLarge(): Error {
  const cause = new KafkaJSProtocolError({
    type: 'MESSAGE_TOO_LARGE',
    code: 10,
    retriable: false,
    message: 'The request included a message larger than the max message size',
  } as unknown as Error);
  return Object.assign(new KafkaJSNonRetriableError(cause), { cause });
}

/**
 * A broker whose dead-letter topic reports `limits` in turn (the last one from then on) and
 * answers each send with the next of `answers` (then success); sends and reads are recorded.
 */
function fakeBroker(limits: number[], answers: Array<Error | undefined>) {
  const sent: ProducerRecord[] = [];
  let reads = 0;
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    describeConfigs: () => {
      const limit = limits[Math.min(reads++, limits.length - 1)];
      return Promise.resolve({
        resources: [
          { configEntries: [{ configName: 'max.message.bytes', configValue: `${limit}` }] },
        ],
      });
    },
  };
  const producer = {
    connect: () => Promise.resolve(),
    send: (record: ProducerRecord) => {
      sent.push(record);
      const answer = answers.shift();
      return answer ? Promise.reject(answer) : Promise.resolve([]);
    },
  };
  const kafka = { producer: () => producer, admin: () => admin } as unknown as Kafka;
  return { kafka, sent, reads: () => reads };
}

function inbound(valueBytes: number): ConsumedRecord {
  return {
    topic: 'user.signed_up.v1',
    partition: 0,
    offset: '7',
    timestamp: '1790000000000',
    key: Buffer.from('user-7'),
    value: Buffer.alloc(valueBytes, 'x'),
    headers: { 'x-origin': 'test' },
  };
}

describe(ResultPublisher.name, () => {
  const config = loadConfig({ MAILBRIDGE_MODE: 'local' });

  it('sends records published together in few produce requests, each well under 1 MiB', async () => {
    const batches: ProducerBatch[] = [];
    const publisher = new ResultPublisher(fakeKafka(batches), config, new Tracing());
    const value = JSON.stringify({ padding: 'x'.repeat(1000) });
    await Promise.all(
      Array.from({ length: 1500 }, (_, i) =>
        publisher.publish(i % 2 ? 'a' : 'b', {
          key: `k${i}`,
          value,
          headers: { 'content-type': 'application/json', 'x-record': `e${i}` },
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
    // Each request is filled up to its limit, headers and keys counted: few and full, not many.
    expect(batches.length).toBeLessThanOrEqual(Math.ceil((1500 * 1100) / (512 * 1024)) + 1);
    const all = batches.flatMap((b) => (b.topicMessages ?? []).flatMap((t) => t.messages));
    expect(all).toHaveLength(1500);
    expect(all[0].headers).toEqual({ 'content-type': 'application/json', 'x-record': 'e0' });
  });

  it('publishes many results with one promise, settled once the last produce request is answered', async () => {
    const batches: ProducerBatch[] = [];
    const answers: Array<() => void> = [];
    const producer = {
      connect: () => Promise.resolve(),
      sendBatch: (batch: ProducerBatch) => {
        batches.push(batch);
        return new Promise<[]>((resolve) => answers.push(() => resolve([])));
      },
    };
    const kafka = { producer: () => producer } as unknown as Kafka;
    const publisher = new ResultPublisher(kafka, config, new Tracing());
    const outcome = {
      status: 'sent' as const,
      requestIds: ['req-1'],
      message: 'ok',
      recipientCount: 1,
      batchRecipientCount: 400,
    };
    // 400 results of about 1.5 KB each: more than one produce request of 512 KiB.
    const results = Array.from({ length: 400 }, (_, i) => ({
      event: { id: `e-${i}`, type: 'user.signed_up.v1' },
      template: 'welcome',
      outcome: { ...outcome, message: 'x'.repeat(1000) },
      source: { key: Buffer.from(`k${i}`), headers: {} },
    }));
    let settled = false;
    const publishing = publisher.publishResults(results).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    answers.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(2); // the second request goes once the first is answered
    expect(settled).toBe(false); // its records are not all acknowledged yet
    answers.shift()!();
    await publishing;
    const messages = batches.flatMap((b) => (b.topicMessages ?? []).flatMap((t) => t.messages));
    expect(messages.map((m) => String(m.key))).toEqual(results.map((r) => String(r.source.key)));
  });

  it('counts keys and headers against a request’s limit, not values alone', async () => {
    const batches: ProducerBatch[] = [];
    const publisher = new ResultPublisher(fakeKafka(batches), config, new Tracing());
    // Small values, 2 KB of propagated headers each (a tracestate, say): 1 MB in all.
    await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        publisher.publish('a', {
          key: `k${i}`,
          value: '{}',
          headers: { tracestate: 'x'.repeat(2000) },
        }),
      ),
    );
    const bytes = batches.map((b) =>
      (b.topicMessages ?? [])
        .flatMap((t) => t.messages)
        .reduce((n, m) => n + String(m.value).length + String(m.headers?.tracestate).length, 0),
    );
    expect(batches.length).toBeGreaterThan(1);
    expect(Math.max(...bytes)).toBeLessThan(512 * 1024);
  });

  it('rejects every record of a failed produce request, so none is committed', async () => {
    const kafka = {
      producer: () => ({
        connect: () => Promise.resolve(),
        sendBatch: () => Promise.reject(new Error('broker down')),
      }),
    } as unknown as Kafka;
    const publisher = new ResultPublisher(kafka, config, new Tracing());
    await expect(publisher.publish('a', { key: null, value: '{}', headers: {} })).rejects.toThrow(
      'broker down',
    );
  });

  it('makes one producer call at a time; one that fails does not hold up the next', async () => {
    // Two calls at once on one idempotent producer can lose records: see `serially`.
    const calls: string[] = [];
    let underWay = 0;
    let most = 0;
    const call = (name: string, fail = false) => {
      calls.push(name);
      most = Math.max(most, ++underWay);
      return new Promise<[]>((resolve, reject) =>
        setTimeout(() => {
          underWay -= 1;
          if (fail) reject(new Error('not leader'));
          else resolve([]);
        }, 5),
      );
    };
    let batches = 0;
    const admin = {
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      describeConfigs: () =>
        Promise.resolve({
          resources: [
            { configEntries: [{ configName: 'max.message.bytes', configValue: '1048588' }] },
          ],
        }),
    };
    const kafka = {
      admin: () => admin,
      producer: () => ({
        connect: () => Promise.resolve(),
        sendBatch: () => call(`batch ${++batches}`, batches === 1),
        send: () => call('dead letter'),
      }),
    } as unknown as Kafka;
    const publisher = new ResultPublisher(kafka, config, new Tracing());
    // 600 KB of results published together: two produce requests (each under 512 KiB).
    const value = 'x'.repeat(2000);
    const results = Array.from({ length: 300 }, (_, i) =>
      publisher.publish('a', { key: `k${i}`, value, headers: {} }).then(
        () => 'sent',
        () => 'failed',
      ),
    );
    const deadLetter = publisher.deadLetter(inbound(10), new InvalidEventError('INVALID', 'bad'));
    const outcomes = await Promise.all(results);
    await deadLetter;
    expect(most).toBe(1);
    expect([...calls].sort()).toEqual(['batch 1', 'batch 2', 'dead letter']);
    expect(outcomes.filter((o) => o === 'failed').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'sent').length).toBeGreaterThan(0);
  });

  describe('deadLetter', () => {
    const invalid = new InvalidEventError('INVALID', 'data.email must be an email');

    it('sends the original when it fits the limit read from the topic', async () => {
      const broker = fakeBroker([1_048_588], []);
      await new ResultPublisher(broker.kafka, config, new Tracing()).deadLetter(
        inbound(20_000),
        invalid,
      );
      expect(broker.sent).toHaveLength(1);
      expect(broker.sent[0].topic).toBe(config.topics.deadLetter);
      expect(broker.sent[0].messages[0].value).toEqual(inbound(20_000).value);
    });

    it('sends a reference when the topic limit is smaller than the dead letter', async () => {
      const broker = fakeBroker([10_000], []);
      await new ResultPublisher(broker.kafka, config, new Tracing()).deadLetter(
        inbound(20_000),
        invalid,
      );
      expect(broker.sent).toHaveLength(1);
      const [message] = broker.sent[0].messages;
      expect(message.headers?.['mailbridge_dlt-value-replaced']).toBe('reference');
      expect(message.headers?.['x-origin']).toBe('test');
      const ref = JSON.parse(String(message.value)) as DeadLetterReference;
      expect(ref).toMatchObject({ originalSize: 20_000, originalOffset: '7', limitBytes: 10_000 });
    });

    it('reads the limit again after a size refusal and sends a reference, not the same record', async () => {
      const broker = fakeBroker([1_048_588, 10_000], [messageTooLarge()]);
      await new ResultPublisher(broker.kafka, config, new Tracing()).deadLetter(
        inbound(20_000),
        invalid,
      );
      expect(broker.sent).toHaveLength(2);
      expect(broker.reads()).toBe(2);
      const ref = JSON.parse(String(broker.sent[1].messages[0].value)) as DeadLetterReference;
      expect(ref).toMatchObject({ reason: 'refused-by-broker', limitBytes: 10_000 });
    });

    it('goes to the minimal form after a refused reference, and gives up after that', async () => {
      const broker = fakeBroker([1_048_588], [messageTooLarge(), messageTooLarge()]);
      await new ResultPublisher(broker.kafka, config, new Tracing()).deadLetter(
        inbound(20_000),
        invalid,
      );
      expect(broker.sent.map((r) => r.messages[0].headers?.['mailbridge_dlt-key-dropped'])).toEqual(
        [undefined, undefined, 'true'],
      );

      const refusing = fakeBroker([1_048_588], [1, 2, 3, 4].map(messageTooLarge));
      await expect(
        new ResultPublisher(refusing.kafka, config, new Tracing()).deadLetter(inbound(10), invalid),
      ).rejects.toThrow('raise its max.message.bytes');
      expect(refusing.sent).toHaveLength(3);
    });

    it('rejects on any other failure, for the caller to try again', async () => {
      const broker = fakeBroker([1_048_588], [new Error('broker down')]);
      await expect(
        new ResultPublisher(broker.kafka, config, new Tracing()).deadLetter(inbound(10), invalid),
      ).rejects.toThrow('broker down');
      expect(broker.sent).toHaveLength(1);
    });
  });
});
