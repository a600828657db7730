import type { MailbridgeResult } from '@mailbridge/contracts';
import { PipelineFixture, type Topics } from '../support/service-harness';
import { testBrokers, waitFor } from '../support/kafka-helpers';
import { NpmRun, publishedEvents } from './example-process';

jest.setTimeout(240_000);

/** Each inbound type, the fixture topic it goes to, and the results its templates give. */
const INBOUND: ReadonlyArray<[string, keyof Topics, string[]]> = [
  ['user.signed_up.v1', 'TOPIC_USER_SIGNED_UP', ['email.campaign.sent.v1']],
  [
    'order.placed.v1',
    'TOPIC_ORDER_PLACED',
    ['email.campaign.sent.v1', 'email.contact_list.created.v1'],
  ],
  ['email.campaign.requested.v1', 'TOPIC_CAMPAIGN_REQUESTED', ['email.campaign.sent.v1']],
  [
    'email.contact_list.requested.v1',
    'TOPIC_CONTACT_LIST_REQUESTED',
    ['email.contact_list.created.v1'],
  ],
];

/**
 * README, "Quick start": the publisher example's events of every type, in both modes, go through
 * the real service, and the subscriber example prints every result, decoded, in the mode the
 * service publishes (`RESULT_EVENT_MODE`). This needs the service to publish its results as
 * CloudEvents; results in the older plain-JSON envelope are skipped by the subscriber, and the
 * wait for them times out.
 */
describe.each(['binary', 'structured'])(
  'results published in %s mode, end to end',
  (resultMode) => {
    const fixture = new PipelineFixture();
    const runs: NpmRun[] = [];
    const start = (script: string, args: string[]) => {
      const run = new NpmRun(script, args);
      runs.push(run);
      return run;
    };

    beforeAll(async () => {
      await fixture.start();
      await fixture.startService({
        RESULT_EVENT_MODE: resultMode,
        CONTACT_LIST_WINDOW_MS: '1000',
        BATCH_LINGER_MS: '100',
      });
    });
    afterAll(async () => {
      for (const run of runs.splice(0)) run.kill();
      await fixture.stop();
    });

    it('the subscriber prints a result for every event the publisher sent', async () => {
      const brokers = testBrokers().join(',');
      const publishers = INBOUND.flatMap(([type, topic]) =>
        ['binary', 'structured'].map((mode) =>
          start('example:publish', [
            type,
            '--mode',
            mode,
            '--brokers',
            brokers,
            '--topic',
            fixture.topics[topic],
          ]),
        ),
      );
      expect(await Promise.all(publishers.map((run) => run.finished()))).toEqual(
        publishers.map(() => 0),
      );
      const published = publishers.flatMap(publishedEvents);
      const expected = published
        .flatMap((p) =>
          INBOUND.find(([type]) => type === p.type)![2].map((result) => `${p.id} ${result}`),
        )
        .sort();

      const t = fixture.topics;
      const subscriber = start('example:subscribe', [
        '--brokers',
        brokers,
        '--topics',
        [t.TOPIC_CAMPAIGN_SENT, t.TOPIC_CONTACT_LIST_CREATED, t.TOPIC_DISPATCH_FAILED].join(','),
        '--json',
      ]);
      const results = await waitFor(
        () => {
          const lines = subscriber.lines('{').map((l) => JSON.parse(l) as MailbridgeResult);
          return lines.length >= expected.length ? lines : undefined;
        },
        { what: `${expected.length} decoded results`, timeoutMs: 90_000 },
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}; the subscriber said:\n${subscriber.stdout()}\n${subscriber.stderr()}`,
        );
      });

      expect(results.map((r) => `${r.sourceeventid} ${r.type}`).sort()).toEqual(expected);
      expect(results.every((r) => r.record.mode === resultMode && r.source === 'mailbridge')).toBe(
        true,
      );
      const signUp = published.find((p) => p.type === 'user.signed_up.v1')!;
      expect(results.find((r) => r.sourceeventid === signUp.id)).toMatchObject({
        type: 'email.campaign.sent.v1',
        data: { sourceEventId: signUp.id, template: 'welcome', recipientCount: 1 },
        record: { key: signUp.key },
      });
      expect(fixture.collector.count(t.TOPIC_DEAD_LETTER)).toBe(0);
      expect(await subscriber.stop()).toBe(0);
    });
  },
);
