import { Kafka as CloudEventsKafka, type Message } from 'cloudevents';
import type { MailbridgeResult } from '@mailbridge/contracts';
import { parseEvent } from '../../src/inbound/event.parser';
import { typesByTopic } from '../../src/inbound/topic-types';
import type { TopicsConfig } from '../../src/config/app-config';
import {
  TopicCollector,
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from '../support/kafka-helpers';
import { NpmRun, publishedEvents } from './example-process';

jest.setTimeout(180_000);

const INBOUND = {
  userSignedUp: 'user.signed_up.v1',
  orderPlaced: 'order.placed.v1',
  campaignRequested: 'email.campaign.requested.v1',
  contactListRequested: 'email.contact_list.requested.v1',
} as const;
const MODES = ['binary', 'structured'] as const;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * README, "Quick start" and "Publishing to mailbridge": the examples under examples/ run as a
 * user runs them (`npm run example:publish`, `npm run example:subscribe`), against the real
 * broker. What the publisher writes is read back with the cloudevents SDK's own decoder and with
 * mailbridge's own parser; the subscriber is fed results written here, by hand, in the format
 * mailbridge publishes (CloudEvents 1.0, binary and structured mode).
 */
describe('the examples of @mailbridge/contracts', () => {
  const kafka = testKafka();
  const runs: NpmRun[] = [];
  const start = (script: string, args: string[]) => {
    const run = new NpmRun(script, args);
    runs.push(run);
    return run;
  };
  afterEach(() => {
    for (const run of runs.splice(0)) run.kill();
  });

  it('publishes every inbound type in both modes, as CloudEvents mailbridge accepts', async () => {
    const topics = Object.fromEntries(
      Object.entries(INBOUND).map(([role, type]) => [role, uniqueName(type)]),
    ) as Record<keyof typeof INBOUND, string>;
    await createTopics(kafka, Object.values(topics), 1);
    const runsOf = Object.entries(INBOUND).flatMap(([role, type]) =>
      MODES.map((mode) =>
        start('example:publish', [
          type,
          '--mode',
          mode,
          '--count',
          '2',
          '--brokers',
          testBrokers().join(','),
          '--topic',
          topics[role as keyof typeof INBOUND],
        ]),
      ),
    );
    expect(await Promise.all(runsOf.map((run) => run.finished()))).toEqual(runsOf.map(() => 0));
    // Each prints what it published and nothing else (npm's own "> script" banner aside): no
    // kafkajs log line, such as its warning of a producer that names no partitioner.
    for (const run of runsOf) {
      const printed = run.stdout().split('\n');
      expect(
        printed.filter((l) => l && !l.startsWith('> ') && !l.startsWith('published ')),
      ).toEqual([]);
      expect(run.stderr()).not.toContain('"logger":"kafkajs"');
    }
    const published = runsOf.flatMap(publishedEvents);
    expect(published).toHaveLength(16);

    const collector = await new TopicCollector(kafka).start(Object.values(topics));
    try {
      await waitFor(() => (collector.messages.length >= 16 ? true : undefined), {
        what: 'the 16 published records',
      });
      const options = { maxBytes: 1_048_576, typesByTopic: typesByTopic(topics as TopicsConfig) };
      for (const p of published) {
        const record = collector.messages.find((m) => {
          const id =
            m.headers?.ce_id?.toString() ?? (JSON.parse(m.value!.toString()) as { id?: string }).id;
          return id === p.id;
        });
        expect(record).toBeDefined();
        expect(record!.topic).toBe(p.topic);
        expect(record!.key?.toString()).toBe(p.key);
        const contentType = record!.headers?.['content-type']?.toString();
        expect(contentType).toBe(
          p.mode === 'binary' ? 'application/json' : 'application/cloudevents+json; charset=utf-8',
        );
        // The CloudEvents SDK reads it as the event the publisher printed.
        const headers = Object.fromEntries(
          Object.entries(record!.headers ?? {}).map(([k, v]) => [k, v!.toString()]),
        );
        const value = record!.value!.toString();
        const event = CloudEventsKafka.toEvent({ headers, body: value, value } as Message);
        expect(event).toMatchObject({ specversion: '1.0', id: p.id, type: p.type });
        // And mailbridge's own parser accepts it, on its type's topic.
        const parsed = await parseEvent(
          { ...record!, partition: 0, key: record!.key ?? null, headers: record!.headers ?? {} },
          options,
        );
        expect(parsed).toMatchObject({ id: p.id, type: p.type });
      }
    } finally {
      await collector.stop();
    }
  });

  it('the publisher refuses an unknown type and says how to call it', async () => {
    const run = start('example:publish', ['user.signed_up.v2']);
    expect(await run.exited).not.toBe(0);
    expect(run.stderr()).toContain('usage: npm run example:publish');
  });

  /** A result as mailbridge publishes it, in `mode`. */
  function result(mode: (typeof MODES)[number], type: string, id: string, data: object) {
    const attributes = {
      specversion: '1.0',
      id: `result-${id}`,
      source: 'mailbridge',
      type,
      time: new Date().toISOString(),
      sourceeventid: id,
    };
    if (mode === 'structured') {
      return {
        key: `key-${id}`,
        value: JSON.stringify({ ...attributes, datacontenttype: 'application/json', data }),
        headers: {
          'content-type': 'application/cloudevents+json; charset=utf-8',
          traceparent: TRACEPARENT,
        },
      };
    }
    const ce = Object.entries(attributes).map(([name, v]) => [`ce_${name}`, v]);
    return {
      key: `key-${id}`,
      value: JSON.stringify(data),
      headers: {
        ...(Object.fromEntries(ce) as Record<string, string>),
        'content-type': 'application/json',
        traceparent: TRACEPARENT,
      },
    };
  }

  it('subscribes to the results and prints each decoded, in both modes', async () => {
    const sent = uniqueName('email.campaign.sent.v1');
    const created = uniqueName('email.contact_list.created.v1');
    const failed = uniqueName('email.dispatch.failed.v1');
    await createTopics(kafka, [sent, created, failed], 1);
    const about = (id: string) => ({
      sourceEventId: id,
      sourceEventType: 'user.signed_up.v1',
      template: 'welcome',
    });
    for (const mode of MODES) {
      await produce(kafka, sent, [
        result(mode, 'email.campaign.sent.v1', `s-${mode}`, {
          ...about(`s-${mode}`),
          requestId: `req-${mode}`,
          requestIds: [`req-${mode}`],
          message: 'queued',
          recipientCount: 1,
          batchRecipientCount: 1,
        }),
      ]);
      await produce(kafka, created, [
        result(mode, 'email.contact_list.created.v1', `c-${mode}`, {
          ...about(`c-${mode}`),
          listId: `list-${mode}`,
          name: 'New customers',
          memberCount: 2,
        }),
      ]);
      await produce(kafka, failed, [
        result(mode, 'email.dispatch.failed.v1', `f-${mode}`, {
          ...about(`f-${mode}`),
          errorCode: 'VENDOR_REJECTED',
          vendorStatus: 422,
          retriable: false,
          message: 'the vendor refused the request',
        }),
      ]);
    }
    // Not a result: a subscriber says so and goes on.
    await produce(kafka, failed, [{ key: 'x', value: '{"not":"a result"}' }]);

    const brokers = testBrokers().join(',');
    const topics = [sent, created, failed].join(',');
    const human = start('example:subscribe', ['--brokers', brokers, '--topics', topics]);
    const group = uniqueName('example-subscriber');
    const json = start('example:subscribe', [
      ...['--brokers', brokers, '--topics', topics, '--json', '--group', group],
    ]);
    const decoded = await waitFor(
      () => {
        const lines = json.lines('{');
        return lines.length >= 6 ? lines.map((l) => JSON.parse(l) as MailbridgeResult) : undefined;
      },
      { what: 'six decoded results', timeoutMs: 60_000 },
    );
    expect(decoded.map((r) => [r.type, r.sourceeventid, r.record.mode]).sort()).toEqual(
      [
        ['email.campaign.sent.v1', 's-binary', 'binary'],
        ['email.campaign.sent.v1', 's-structured', 'structured'],
        ['email.contact_list.created.v1', 'c-binary', 'binary'],
        ['email.contact_list.created.v1', 'c-structured', 'structured'],
        ['email.dispatch.failed.v1', 'f-binary', 'binary'],
        ['email.dispatch.failed.v1', 'f-structured', 'structured'],
      ].sort(),
    );
    expect(decoded.find((r) => r.sourceeventid === 's-structured')).toMatchObject({
      source: 'mailbridge',
      data: { requestId: 'req-structured', recipientCount: 1 },
      record: { key: 'key-s-structured', traceparent: TRACEPARENT },
    });

    await waitFor(
      () =>
        human.lines('email.').length >= 6 && /skipped/.test(human.stderr()) ? true : undefined,
      { what: 'the printed results', timeoutMs: 60_000 },
    );
    expect(human.lines('email.').sort()).toEqual(
      [
        'email.campaign.sent.v1 (binary) sent s-binary [welcome]: request req-binary, 1 recipient(s)',
        'email.campaign.sent.v1 (structured) sent s-structured [welcome]: request req-structured, 1 recipient(s)',
        'email.contact_list.created.v1 (binary) list created c-binary [welcome]: list-binary "New customers", 2 member(s)',
        'email.contact_list.created.v1 (structured) list created c-structured [welcome]: list-structured "New customers", 2 member(s)',
        'email.dispatch.failed.v1 (binary) failed f-binary [welcome]: VENDOR_REJECTED (retriable: false) the vendor refused the request',
        'email.dispatch.failed.v1 (structured) failed f-structured [welcome]: VENDOR_REJECTED (retriable: false) the vendor refused the request',
      ].sort(),
    );
    expect(human.stderr()).toMatch(/skipped .*: the record is not a CloudEvent/);
    // SIGTERM to npm: the subscriber disconnects and exits 0.
    expect(await human.stop()).toBe(0);
    // Ctrl-C: every process ends, and the consumer has left its group (a consumer that did not
    // disconnect would stay a member until its 30 s session timed out).
    await json.interrupt();
    await waitFor(() => (json.groupAlive() ? undefined : true), {
      what: 'every process of the subscriber to end',
      timeoutMs: 15_000,
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([group]);
      expect(groups[0]).toMatchObject({ groupId: group, state: 'Empty', members: [] });
    } finally {
      await admin.disconnect();
    }
  });
});
