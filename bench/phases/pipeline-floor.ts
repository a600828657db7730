import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompressionTypes, Kafka, logLevel, Partitioners, type Message } from 'kafkajs';
import { pino, type DestinationStream } from 'pino';
import { Pool } from 'undici';
import { RedisWindowStore } from '../../src/windows/redis-window.store';
import { loadConfig } from '../../src/config/config.loader';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import type { EventEnvelope } from '../../src/contracts/event-envelope';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import {
  API_KEY_HEADER,
  RELAY_TOKEN_HEADER,
  type CampaignRecipient,
} from '../../src/email-api/vendor.types';
import type { HeldClaim } from '../../src/idempotency/idempotency.store';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { eventOf } from '../../src/inbound/event.parser';
import { encodeResult } from '../../src/outbound/result-encoding';
import { resultFor } from '../../src/outbound/result.factory';
import type { ConsumedReport, FloorChildConfig } from './child-messages';
import { floorWork } from './floor-work';

/**
 * pipeline-floor: the work every event needs, in the leanest arrangement, with none of
 * mailbridge's machinery around it. Per fetched batch: each record parsed and validated as
 * mailbridge does it (`eventOf`), planned by the workload's templates, its actions claimed in
 * Redis (the project's store, one script call for the batch). Its campaign recipient (welcome
 * for a sign-up, order-confirmation for an order) joins a request of 1,000 (or whatever is there
 * after 100 ms) gathered across partitions, marked `sending` before and its outcome recorded
 * after the vendor's answer; an order's customer also goes into its contact-list window (the
 * project's window store, one script call for the batch), recorded `in-window`. Then one result
 * event per campaign recipient (the project's CloudEvent), one JSON log line per action, and the
 * batch committed once its results are acknowledged (acks=all). For orders, a loop like
 * mailbridge's closer takes each due list, creates it at the vendor, records every order's
 * outcome and publishes its result.
 *
 * What it leaves out is everything that makes that work safe under failure: the in-flight
 * window and per-partition progress (each batch waits for its own records instead), retries,
 * leases kept alive, the vendor gate and its rate limits (mailbridge creates at most 60 lists a
 * minute, so its lists come later), claims found busy or done, ambiguous sends, dead letters,
 * tracing, metrics and the Nest application. So it is not a design to copy: it is a measure of
 * how much of mailbridge's cost per event is that work, and how much is the machinery.
 */
const MAX_RECIPIENTS = 1_000;
const LINGER_MS = 100;
const RESULTS_PER_SEND = 1_000;
const CLAIM_TTL_MS = 120_000;
/** The window store's lease on a list being created, and the longest the closer sleeps. */
const LIST_LEASE_MS = 60_000;
const LIST_POLL_MS = 1_000;
const RETENTION_SECONDS = 900;

interface Planned {
  event: InboundEvent;
  message: { key: Buffer | null; offset: string };
  campaign: HeldClaim;
  window?: HeldClaim;
}

interface Pending {
  event: InboundEvent;
  claim: HeldClaim;
  recipient: CampaignRecipient;
  done: (outcome: ActionOutcome) => void;
}

/** What the floor's caller hears, and where its log lines go (stdout unless told). */
export interface FloorHooks {
  /** Once, when `expected` records are handled. */
  done: (report: ConsumedReport) => void;
  /** The contact-list loop failed: the floor stops creating lists. */
  failed: (error: unknown) => void;
  log?: DestinationStream;
}

/** A running floor: `stop` ends its loops and closes its clients. */
export interface RunningFloor {
  stop(): Promise<void>;
}

/** Starts the floor on `config`'s topics; it runs until stopped. */
export async function startFloor(
  config: FloorChildConfig,
  hooks: FloorHooks,
): Promise<RunningFloor> {
  const appConfig = loadConfig({
    MAILBRIDGE_MODE: 'local',
    SENDER_FROM_EMAIL: 'bench@mailbridge.local',
  });
  const work = floorWork(config.workload, appConfig);
  const log = pino(
    { name: 'pipeline-floor' },
    hooks.log ?? pino.destination({ dest: 1, sync: false }),
  );
  let stopping = false;
  const prefix = `bench:${config.groupId}:`;
  const store = new RedisIdempotencyStore(config.redisUrl, RETENTION_SECONDS, prefix);
  await store.connect();
  const windowStore = new RedisWindowStore(store.client, prefix, {
    lingerMs: appConfig.batching.lingerMs,
    maxMembers: appConfig.batching.contactListMaxMembers,
    latePolicy: appConfig.batching.contactListLatePolicy,
    retentionSeconds: RETENTION_SECONDS,
  });
  const instance = `floor-${process.pid}`;
  await store.heartbeat(instance, 600_000);
  const relay = new URL(config.relayBaseUrl);
  const pool = new Pool(relay.origin, { connections: 64 });
  const campaignPath = `${relay.pathname.replace(/\/+$/, '')}/email/campaign`;
  const vendor = new URL(config.vendorBaseUrl);
  const contacts = new Pool(vendor.origin, { connections: 4 });
  const contactsPath = `${vendor.pathname.replace(/\/+$/, '')}${appConfig.vendor.contactsPath}`;
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

  const produce = async (topic: string, messages: Message[]) => {
    for (let i = 0; i < messages.length; i += RESULTS_PER_SEND) {
      await producer.send({
        topic,
        acks: -1,
        compression: CompressionTypes.None,
        messages: messages.slice(i, i + RESULTS_PER_SEND),
      });
    }
  };
  const resultMessage = (
    event: Pick<EventEnvelope, 'id' | 'type'>,
    template: string,
    outcome: ActionOutcome,
    key: Buffer | null,
  ): Message => {
    const encoded = encodeResult(
      resultFor(event, template, outcome, new Date(), 'mailbridge'),
      'binary',
    );
    return { key, value: encoded.value, headers: encoded.headers };
  };

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
    const { content } = work.campaign.plan(request[0].event);
    const body = JSON.stringify({
      ...content,
      recipients: { to: request.map((p) => p.recipient) },
    });
    const response = await pool.request({
      method: 'POST',
      path: campaignPath,
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
        campaignId: content.campaignId,
        recipientCount: 1,
        batchRecipientCount: request.length,
      },
    }));
    await store.complete(outcomes);
    request.forEach((p, i) => p.done(outcomes[i].outcome));
  };

  /** Every record's campaign recipient into the requests; their results once all are sent. */
  const campaigns = (planned: Planned[], topic: string, partition: number): Promise<Message[]> =>
    new Promise<Message[]>((resolve) => {
      const results = new Array<Message>(planned.length);
      let left = planned.length;
      planned.forEach((p, i) => {
        const template = work.campaign.template;
        open.push({
          event: p.event,
          claim: p.campaign,
          recipient: work.campaign.plan(p.event).recipients[0],
          done: (outcome) => {
            results[i] = resultMessage(p.event, template, outcome, p.message.key);
            log.info({
              msg: 'sent',
              eventId: p.event.id,
              eventType: p.event.type,
              topic,
              partition,
              offset: p.message.offset,
              template,
              status: 'sent',
              requestIds: outcome.status === 'sent' ? outcome.requestIds : [],
              recipients: 1,
            });
            if (--left === 0) resolve(results);
          },
        });
        if (open.length >= MAX_RECIPIENTS) flush();
        else timer ??= setTimeout(flush, LINGER_MS);
      });
    });

  /** Every order's customer into its contact-list window: one script call for the batch. */
  const intoWindows = async (planned: Planned[], topic: string, partition: number) => {
    const window = work.window!;
    const placements = await Promise.all(
      planned.map((p) => windowStore.add(window.entryOf(p.event, p.window!.key, p.message.key))),
    );
    await store.complete(
      placements.map((placed, i) => ({
        key: planned[i].window!.key,
        outcome: { status: 'in-window' as const, list: placed.list },
      })),
    );
    placements.forEach((placed, i) => {
      const { event, message } = planned[i];
      log.info({
        msg: 'in-window',
        eventId: event.id,
        eventType: event.type,
        topic,
        partition,
        offset: message.offset,
        template: window.template,
        status: 'in-window',
        list: placed.list,
      });
    });
  };

  /** Creates each contact list when it is due, and publishes every order's result. */
  const closeWindows = async (): Promise<void> => {
    while (!stopping) {
      const list = await windowStore.take(instance, LIST_LEASE_MS);
      if (!list) {
        const next = await windowStore.nextDue();
        const wait = next === undefined ? LIST_POLL_MS : next - Date.now();
        await sleep(Math.min(LIST_POLL_MS, Math.max(0, wait)));
        continue;
      }
      await windowStore.markSending(list.name, instance);
      const response = await contacts.request({
        method: 'POST',
        path: contactsPath,
        headers: { 'content-type': 'application/json', [API_KEY_HEADER]: config.apiKey },
        body: JSON.stringify({ name: list.name, members: list.members }),
      });
      const { id } = (await response.body.json()) as { id: string };
      await windowStore.created(list.name, instance, id, false);
      const outcome: ActionOutcome = {
        status: 'created',
        listId: id,
        name: list.name,
        memberCount: list.members.length,
      };
      await store.complete(list.orders.map((o) => ({ key: o.ref, outcome })));
      await produce(
        config.contactListTopic,
        list.orders.map((o) =>
          resultMessage(
            { id: o.eventId, type: o.eventType },
            o.template,
            outcome,
            o.key === null ? null : Buffer.from(o.key, 'base64'),
          ),
        ),
      );
      await windowStore.published(list.name, instance);
      log.info({
        msg: `contact list ${list.name} created`,
        listId: id,
        results: list.orders.length,
      });
    }
  };
  const closing = work.window ? closeWindows().catch(hooks.failed) : Promise.resolve();

  let count = 0;
  let firstAt = 0;
  let handling = 0;
  let reported = false;
  await consumer.run({
    partitionsConsumedConcurrently: config.partitions,
    eachBatch: async ({ batch }) => {
      firstAt ||= Date.now();
      const { topic, partition, messages } = batch;
      const typesByTopic = new Map([[topic, new Set([config.eventType])]]);
      const planned = messages.map((m): Planned => {
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
        const claim = (template: string) => ({ key: `${event.id}:${template}`, holder });
        return {
          event,
          message: { key: m.key ?? null, offset: m.offset },
          campaign: claim(work.campaign.template),
          window: work.window && claim(work.window.template),
        };
      });
      // One turn: every claim of the batch goes to Redis in one script call.
      await Promise.all(
        planned
          .flatMap((p) => (p.window ? [p.campaign, p.window] : [p.campaign]))
          .map((c) => store.claim(c.key, c.holder, CLAIM_TTL_MS)),
      );
      const [results] = await Promise.all([
        campaigns(planned, topic, partition),
        work.window ? intoWindows(planned, topic, partition) : undefined,
      ]);
      await produce(config.resultTopic, results);
      count += messages.length;
      if (!reported && config.expected !== undefined && count >= config.expected) {
        reported = true;
        hooks.done({ type: 'done', count, firstAt, lastAt: Date.now() });
      }
    },
  });
  return {
    stop: async () => {
      stopping = true;
      await Promise.allSettled([consumer.disconnect(), closing]);
      await Promise.allSettled([producer.disconnect(), pool.close(), contacts.close()]);
      await store.close();
    },
  };
}
