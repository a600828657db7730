import 'reflect-metadata';
import { CompressionTypes, Kafka, logLevel, Partitioners, type Message } from 'kafkajs';
import { pino } from 'pino';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config/config.loader';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { RELAY_TOKEN_HEADER, type CampaignRecipient } from '../../src/email-api/vendor.types';
import type { HeldClaim } from '../../src/idempotency/idempotency.store';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { eventOf } from '../../src/inbound/event.parser';
import { encodeResult } from '../../src/outbound/result-encoding';
import { resultFor } from '../../src/outbound/result.factory';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import { childConfig, type ConsumedReport, type FloorChildConfig } from './child-messages';

/**
 * pipeline-floor: the work every sign-up needs, in the leanest arrangement, with none of
 * mailbridge's machinery around it. Per fetched batch: each record parsed and validated as
 * mailbridge does it (`eventOf`), planned by the welcome template, claimed in Redis (the
 * project's store, one script call for the batch); recipients of all partitions gathered into
 * requests of 1,000 (or whatever is there after 100 ms), each marked `sending` before and its
 * outcomes recorded after the vendor's answer; then one result event per record (the project's
 * CloudEvent), one JSON log line per record, and the batch committed once its results are
 * acknowledged (acks=all).
 *
 * What it leaves out is everything that makes that work safe under failure: the in-flight
 * window and per-partition progress (each batch waits for its own records instead), retries,
 * the vendor gate, claims found busy or done, ambiguous sends, dead letters, tracing, metrics
 * and the Nest application. So it is not a design to copy: it is a measure of how much of
 * mailbridge's cost per event is that work, and how much is the machinery.
 */
const MAX_RECIPIENTS = 1_000;
const LINGER_MS = 100;
const RESULTS_PER_SEND = 1_000;
const TEMPLATE = 'welcome';

interface Pending {
  event: InboundEvent;
  claim: HeldClaim;
  recipient: CampaignRecipient;
  done: (outcome: ActionOutcome) => void;
}

async function main(): Promise<void> {
  const config = childConfig<FloorChildConfig>();
  const appConfig = loadConfig({
    MAILBRIDGE_MODE: 'local',
    SENDER_FROM_EMAIL: 'bench@mailbridge.local',
  });
  const planner = new WelcomePlanner(appConfig);
  const log = pino({ name: 'pipeline-floor' }, pino.destination({ dest: 1, sync: false }));
  const store = new RedisIdempotencyStore(config.redisUrl, 900, `bench:${config.groupId}:`);
  await store.connect();
  const instance = `floor-${process.pid}`;
  await store.heartbeat(instance, 600_000);
  const relay = new URL(config.relayBaseUrl);
  const pool = new Pool(relay.origin, { connections: 64 });
  const path = `${relay.pathname.replace(/\/+$/, '')}/email/campaign`;
  const kafka = new Kafka({
    clientId: 'bench-floor',
    brokers: config.brokers,
    logLevel: logLevel.ERROR,
  });
  const consumer = kafka.consumer({ groupId: config.groupId });
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await Promise.all([consumer.connect(), producer.connect()]);
  await consumer.subscribe({ topics: config.topics, fromBeginning: true });

  let open: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const request = open;
    open = [];
    if (request.length > 0) void send(request);
  };
  const send = async (request: Pending[]) => {
    await store.markSending(request.map((p) => p.claim));
    const body = JSON.stringify({
      ...planner.plan(request[0].event as UserSignedUpV1).content,
      recipients: { to: request.map((p) => p.recipient) },
    });
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', [RELAY_TOKEN_HEADER]: config.token },
      body,
    });
    const { requestId, message } = (await response.body.json()) as Record<string, string>;
    const outcomes = request.map((p) => ({
      key: p.claim.key,
      outcome: {
        status: 'sent' as const,
        requestIds: [requestId],
        message,
        campaignId: 'welcome-v1',
        recipientCount: 1,
        batchRecipientCount: request.length,
      },
    }));
    await store.complete(outcomes);
    request.forEach((p, i) => p.done(outcomes[i].outcome));
  };

  let count = 0;
  let firstAt = 0;
  let handling = 0;
  let reported = false;
  await consumer.run({
    partitionsConsumedConcurrently: config.partitions,
    eachBatch: async ({ batch }) => {
      firstAt ||= Date.now();
      const { topic, partition, messages } = batch;
      const typesByTopic = new Map([[topic, new Set(['user.signed_up.v1'])]]);
      const planned = messages.map((m) => {
        const event = eventOf(
          {
            topic,
            partition,
            offset: m.offset,
            timestamp: m.timestamp,
            timestampType: 'CreateTime',
            key: m.key,
            value: m.value,
            headers: m.headers ?? {},
          },
          { maxBytes: appConfig.consumer.maxEventBytes, typesByTopic },
        );
        const holder = { instance, handling: String(handling++) };
        return { event, message: m, claim: { key: `${event.id}:${TEMPLATE}`, holder } };
      });
      await Promise.all(planned.map((p) => store.claim(p.claim.key, p.claim.holder, 120_000)));
      const results: Message[] = new Array<Message>(planned.length);
      await new Promise<void>((resolve) => {
        let left = planned.length;
        planned.forEach((p, i) => {
          const recipient = planner.plan(p.event as UserSignedUpV1).recipients[0];
          open.push({
            event: p.event,
            claim: p.claim,
            recipient,
            done: (outcome) => {
              const result = resultFor(p.event, TEMPLATE, outcome, new Date(), 'mailbridge');
              const encoded = encodeResult(result, 'binary');
              results[i] = { key: p.message.key, value: encoded.value, headers: encoded.headers };
              log.info({
                msg: 'sent',
                eventId: p.event.id,
                eventType: p.event.type,
                topic,
                partition,
                offset: p.message.offset,
                template: TEMPLATE,
                status: 'sent',
                requestIds: outcome.status === 'sent' ? outcome.requestIds : [],
                recipients: 1,
              });
              if (--left === 0) resolve();
            },
          });
          if (open.length >= MAX_RECIPIENTS) flush();
          else timer ??= setTimeout(flush, LINGER_MS);
        });
      });
      for (let i = 0; i < results.length; i += RESULTS_PER_SEND) {
        await producer.send({
          topic: config.resultTopic,
          acks: -1,
          compression: CompressionTypes.None,
          messages: results.slice(i, i + RESULTS_PER_SEND),
        });
      }
      count += messages.length;
      if (!reported && config.expected !== undefined && count >= config.expected) {
        reported = true;
        const report: ConsumedReport = { type: 'done', count, firstAt, lastAt: Date.now() };
        process.send?.(report);
      }
    },
  });
  const stop = () => {
    // The consumer's disconnect waits for a fetch that may wait 5 s for records that will not
    // come; the harness kills the process after 3 s, and `--profile` needs a clean exit to
    // write the profile. The measurement is over by now: 1 s is all the goodbye it gets.
    setTimeout(() => process.exit(0), 1_000).unref();
    void Promise.allSettled([consumer.disconnect(), producer.disconnect(), store.close()]).finally(
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
