import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

type Result = EmailCampaignSentV1 | EmailDispatchFailedV1;

/**
 * A replica is killed (SIGKILL) in the middle of its batches: some requests accepted, one being
 * answered, others queued. Whenever the kill lands, what must hold afterwards is the same: every
 * event has exactly one result, and an address was accepted twice only when its event's result
 * says the send was ambiguous. With AMBIGUOUS_SEND_POLICY=fail, no address is accepted twice.
 */
describe.each(['resend', 'fail'] as const)(
  'a replica killed mid-batch (AMBIGUOUS_SEND_POLICY=%s)',
  (policy) => {
    const fixture = new PipelineFixture();
    const run = uniqueName('crash');
    const events = Array.from({ length: 200 }, (_, i) => signUp(i, run));
    const settings = {
      BATCH_MAX_RECIPIENTS: '20',
      VENDOR_POOL_CONNECTIONS: '2',
      IDEMPOTENCY_INSTANCE_TTL_MS: '3000',
      AMBIGUOUS_SEND_POLICY: policy,
    };
    let child: ChildProcess | undefined;

    beforeAll(async () => {
      await fixture.start({ latencyMs: 300 });
      await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    });
    afterAll(async () => {
      child?.kill('SIGKILL');
      await fixture.stop();
    });

    it('is replaced by a replica that sends no address twice unless the result says ambiguous', async () => {
      child = spawn(process.execPath, [join(__dirname, '../../dist/main.js')], {
        env: { PATH: process.env.PATH ?? '', ...fixture.env(settings) },
        stdio: 'ignore',
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child!.once('exit', (_c, s) => resolve(s)),
      );
      const accepted = () => fixture.sandbox.requests.filter((r) => r.status === 200);
      await waitFor(() => (accepted().length >= 3 ? true : undefined), {
        timeoutMs: 60_000,
        what: 'the first replica to have three requests accepted',
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const acceptedBeforeKill = accepted().length;
      expect(acceptedBeforeKill).toBeLessThan(events.length / 20); // it died mid-way

      await fixture.startService(settings);
      const t = fixture.topics;
      const results = await waitFor(
        () => {
          const r = [
            ...fixture.collector.results<Result>(t.TOPIC_CAMPAIGN_SENT),
            ...fixture.collector.results<Result>(t.TOPIC_DISPATCH_FAILED),
          ];
          return new Set(r.map((x) => x.sourceeventid)).size >= events.length ? r : undefined;
        },
        { timeoutMs: 120_000, what: 'a result for every event' },
      );

      // Exactly one result per event: republished copies carry the same id and outcome.
      const byEvent = new Map<string, Result>();
      const conflicting: string[] = [];
      for (const r of results) {
        const first = byEvent.get(r.sourceeventid);
        if (!first) byEvent.set(r.sourceeventid, r);
        else if (first.id !== r.id) conflicting.push(r.sourceeventid);
      }
      expect(conflicting).toEqual([]);
      expect(byEvent.size).toBe(events.length);

      const sends = new Map<string, number>();
      for (const request of accepted()) {
        for (const to of (request.body as CampaignRequest).recipients.to) {
          sends.set(to.email, (sends.get(to.email) ?? 0) + 1);
        }
      }
      const unexplained = events.flatMap((event) => {
        const result = byEvent.get(event.id)!;
        const count = sends.get(event.data.email) ?? 0;
        const ambiguous = result.data.ambiguous === true;
        const ok =
          result.type === 'email.campaign.sent.v1'
            ? count === 1 || (count === 2 && ambiguous && policy === 'resend')
            : result.data.errorCode === 'AMBIGUOUS_SEND' &&
              ambiguous &&
              policy === 'fail' &&
              count <= 1;
        return ok ? [] : [`${event.id}: ${result.type}, accepted ${count}×`];
      });
      expect(unexplained).toEqual([]);
      const doubles = [...sends.values()].filter((n) => n > 1).length;
      process.stderr.write(
        `[figures] crash (${policy}): ${acceptedBeforeKill} requests accepted before the kill; ` +
          `${doubles} addresses accepted twice (all flagged ambiguous); ` +
          `${[...byEvent.values()].filter((r) => r.data.ambiguous).length} ambiguous results\n`,
      );
      await exited;
    });
  },
);
