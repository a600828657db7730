import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Dispatcher } from 'undici';
import type { VendorConfig } from '../config/app-config';
import { CampaignSplitter, campaignBody } from './campaign.splitter';
import { NO_BUDGET, type RequestBudget } from './request-budget';
import { RetryPolicy } from './retry.policy';
import { SecretRedactor } from './secret.redactor';
import {
  StoppingError,
  VendorAuthError,
  VendorError,
  VendorRequestError,
  VendorWithheldError,
} from './vendor.errors';
import { checkCampaign, checkContactList } from './vendor-request.validator';
import { parseCampaignResponse, parseContactListResponse } from './vendor-response.parser';
import { VendorTransport, type VendorEndpoint, type VendorReply } from './vendor.transport';
import {
  failedStatus,
  retryReason,
  type VendorEndpointName,
  type VendorObserver,
} from './vendor.observer';
import { checkVendorConfig } from './vendor-config.check';
import { failed, report, type CampaignSend, type CampaignSendHooks } from './campaign-send';
import {
  API_KEY_HEADER,
  RELAY_TOKEN_HEADER,
  type CampaignChunkResult,
  type CampaignRequest,
  type CampaignSendResult,
  type ContactListCreated,
  type ContactListRequest,
} from './vendor.types';

export type { CampaignSendHooks };

/** What the client writes to; Nest's `Logger` fits. Lines never hold keys or addresses. */
export interface VendorLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** Seams for tests: a MockAgent instead of the pools, a pinned random source, a fake clock. */
export interface VendorClientDeps {
  dispatcher?: Dispatcher;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  logger?: VendorLogger;
  /** Hears of every HTTP attempt and every retry (metrics). */
  observer?: VendorObserver;
  /** The pace shared with the other replicas; none when absent. */
  budget?: RequestBudget;
}

/** What a caller hears of a contact-list creation while it is under way. */
export interface ContactListHooks {
  /**
   * Called before every attempt, retries included, with the budget's token held, just before
   * the write (so that a request still waiting for a token is never recorded as about to be
   * written, and one whose list was given back or lost meanwhile is not written at all). A
   * rejection ends the creation with that error, and nothing more is sent.
   */
  beforeWrite?: () => Promise<void>;
}

/**
 * The only place that speaks to the vendor (and the only importer of undici, through
 * `VendorTransport`). Validates requests before they leave, splits long recipient lists, retries
 * in one layer (`RetryPolicy`), and reports every recipient's outcome. Keys never appear in what
 * it logs or throws.
 */
export class VendorClient {
  private readonly transport: VendorTransport;
  private readonly relay: VendorEndpoint;
  private readonly contacts: VendorEndpoint;
  private readonly retry: RetryPolicy;
  private readonly splitter: CampaignSplitter;
  private readonly logger: VendorLogger;
  private readonly observer?: VendorObserver;
  /** Lowered when the vendor answers 413, so that later campaigns are split before sending. */
  private maxRecipients: number;
  /**
   * One campaign request per pooled connection at a time, so that a request handed to the
   * transport is written at once rather than queued: `beforeWrite` then really is "just before".
   */
  private readonly relaySlots: LimitFunction;
  /** The same for contact lists, so that a token is taken only once a connection is free. */
  private readonly contactSlots: LimitFunction;
  private readonly budget: RequestBudget;
  /** Aborted by {@link stop}: from then on no request is written and no retry starts. */
  private readonly stopping = new AbortController();
  /** Rejects with `StoppingError` when the stop begins: a retry's wait ends there. */
  private readonly stopped: Promise<never>;
  /** Requests written and not yet answered, each with what aborts it at the stop's deadline. */
  private readonly onTheWire = new Map<AbortController, Promise<unknown>>();

  constructor(
    private readonly config: VendorConfig,
    deps: VendorClientDeps = {},
  ) {
    checkVendorConfig(config);
    const token =
      config.relayTokenForm === 'token-prefix'
        ? `TOKEN ${config.relayAccessToken}`
        : config.relayAccessToken;
    const redactor = new SecretRedactor([token, config.relayAccessToken, config.apiKey]);
    this.logger = deps.logger ?? new Logger(VendorClient.name);
    this.observer = deps.observer;
    this.budget = deps.budget ?? NO_BUDGET;
    this.stopped = new Promise<never>((_, reject) =>
      this.stopping.signal.addEventListener('abort', () => reject(new StoppingError())),
    );
    this.stopped.catch(() => undefined); // observed by whichever wait races it
    const sleep = deps.sleep ?? ((ms: number) => delay(ms));
    this.transport = new VendorTransport({
      connections: config.poolConnections,
      connectTimeoutMs: config.connectTimeoutMs,
      headersTimeoutMs: config.headersTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      dispatcher: deps.dispatcher,
      now: deps.now ?? Date.now,
      redactor,
    });
    this.relay = this.transport.endpoint('campaign send', config.relayBaseUrl, '/email/campaign', {
      [RELAY_TOKEN_HEADER]: token,
    });
    this.contacts = this.transport.endpoint(
      'contact creation',
      config.baseUrl,
      config.contactsPath,
      { [API_KEY_HEADER]: config.apiKey },
    );
    this.retry = new RetryPolicy(
      {
        maxAttempts: config.retryMaxAttempts,
        baseMs: config.retryBaseMs,
        capMs: config.retryCapMs,
        retryAfterMaxMs: config.retryAfterMaxMs,
        retryAmbiguous: config.retryAmbiguous,
      },
      {
        random: deps.random ?? Math.random,
        sleep: (ms) => Promise.race([sleep(ms), this.stopped]),
        warn: (message) => this.logger.warn(message),
      },
    );
    this.splitter = new CampaignSplitter(config.maxBodyBytes);
    this.maxRecipients = config.maxRecipientsPerRequest;
    this.relaySlots = pLimit(config.poolConnections);
    this.contactSlots = pLimit(config.poolConnections);
  }

  /**
   * Sends one campaign in as many requests as its recipients need. Throws only
   * `VendorRequestError`, when the shared content is unsafe or no recipient is sendable; every
   * other failure comes back per chunk, so that each recipient maps to its own outcome.
   * `hooks` let the caller record each request just before it is written and each outcome the
   * moment it is known (so that an acceptance is recorded before the other chunks finish).
   * `recipientJson`, when the caller serialised the recipients already (the batcher measures
   * them), is `JSON.stringify` of each of `request.recipients.to`: bodies are built from it.
   */
  async sendCampaign(
    request: CampaignRequest,
    hooks: CampaignSendHooks = {},
    recipientJson?: readonly string[],
  ): Promise<CampaignSendResult> {
    const check = checkCampaign(request);
    const { recipients, ...content } = request;
    const results: CampaignChunkResult[] = check.refused.map(({ index, problem }) =>
      failed(new VendorRequestError(`campaign recipient refused: ${problem}`), [index]),
    );
    const split = this.splitter.split(
      content,
      recipients.to,
      check.sendable,
      this.maxRecipients,
      recipientJson,
    );
    for (const index of split.oversized) {
      const error = new VendorRequestError(
        `campaign recipient refused: recipients.to[${index}] alone exceeds ${this.config.maxBodyBytes} body bytes`,
      );
      results.push(failed(error, [index]));
    }
    const send: CampaignSend = { content, to: recipients.to, json: recipientJson, results, hooks };
    const queue = [...split.chunks];
    const worker = async (): Promise<void> => {
      for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
        await this.sendChunk(send, chunk);
      }
    };
    const workers = Math.min(this.config.chunkConcurrency, queue.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return results.sort((a, b) => a.recipientIndexes[0] - b.recipientIndexes[0]);
  }

  /**
   * Creates one contact list; throws a `VendorError` once the retries are spent, or what
   * `hooks.beforeWrite` threw.
   */
  async createContactList(
    request: ContactListRequest,
    hooks: ContactListHooks = {},
  ): Promise<ContactListCreated> {
    checkContactList(request);
    const body = JSON.stringify(request);
    let refused: { error: unknown } | undefined;
    const beforeWrite = async (): Promise<string> => {
      await hooks.beforeWrite?.().catch((error: unknown) => {
        refused = { error };
        throw error; // not retriable for the retry layer: it stops at once
      });
      return body;
    };
    const outcome = await this.retry.run(
      'contact creation',
      () =>
        this.contactSlots(async () =>
          parseContactListResponse((await this.post('contacts', this.contacts, beforeWrite))!),
        ),
      this.retried('contacts'),
    );
    if (refused) throw refused.error;
    if (outcome.ok) return { ...outcome.value, ambiguousAttempts: outcome.ambiguousAttempts };
    throw outcome.error;
  }

  /**
   * The stop: from now on no request is written and no retry starts (each ends with
   * `StoppingError`: nothing was sent, so the work goes back to whoever takes it next), and the
   * budget's waits end. Requests already on the wire get `waitMs` for their answer; any still
   * unanswered then is aborted, its fate unknown (an ambiguous failure). Resolves once none is
   * left on the wire, with how many were on it and how many of those were aborted.
   */
  async stop(waitMs: number): Promise<{ onTheWire: number; aborted: number }> {
    if (!this.stopping.signal.aborted) {
      this.stopping.abort();
      this.budget.close?.();
    }
    const writes = [...this.onTheWire.values()];
    let aborted = 0;
    if (writes.length === 0) return { onTheWire: 0, aborted };
    const deadline = setTimeout(() => {
      for (const abort of this.onTheWire.keys()) {
        abort.abort();
        aborted++;
      }
    }, waitMs);
    await Promise.allSettled(writes);
    clearTimeout(deadline);
    return { onTheWire: writes.length, aborted };
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * One HTTP attempt, first or retry alike: the one place attempts go out. Inside the caller's
   * connection slot it takes its budget token, then asks the caller's `beforeWrite` for the body
   * (is the work still the caller's? then it is marked), and writes it at once: nothing is
   * written once the stop began, and nothing whose owner gave it back or lost it. Undefined when
   * `beforeWrite` left nothing to send. A 429 with `Retry-After` holds back every replica; the
   * retry's own wait for it then ends at the same moment, so the two do not add up. Its duration
   * and status go to the observer.
   */
  private async post(
    name: VendorEndpointName,
    endpoint: VendorEndpoint,
    beforeWrite: () => Promise<string | Buffer | undefined>,
  ): Promise<VendorReply | undefined> {
    this.refuseOnceStopping();
    await this.budget.take(name);
    this.refuseOnceStopping();
    const body = await beforeWrite();
    if (body === undefined) return undefined;
    const abort = new AbortController();
    const started = performance.now();
    const writing = this.transport.post(endpoint, body, abort.signal);
    this.onTheWire.set(abort, writing);
    try {
      const reply = await writing;
      this.observer?.vendorRequest(
        name,
        String(reply.status),
        (performance.now() - started) / 1000,
      );
      return reply;
    } catch (error) {
      this.observer?.vendorRequest(name, failedStatus(error), (performance.now() - started) / 1000);
      if (error instanceof VendorError && error.status === 429 && error.retryAfterMs) {
        this.budget.shrink(name, error.retryAfterMs);
      }
      throw error;
    } finally {
      this.onTheWire.delete(abort);
    }
  }

  private refuseOnceStopping(): void {
    if (this.stopping.signal.aborted) throw new StoppingError();
  }

  private retried(name: VendorEndpointName): ((error: VendorError) => void) | undefined {
    const observer = this.observer;
    return observer && ((error) => observer.vendorRetry(name, retryReason(error)));
  }

  private async sendChunk(send: CampaignSend, indexes: number[]): Promise<void> {
    if (send.authError) {
      // The key is wrong for every chunk alike: don't knock on the door again.
      report(send, failed(send.authError, indexes));
      return;
    }
    let body: Buffer | undefined;
    // Before every attempt: only the recipients whose claims are still held go, marked.
    const beforeWrite = async (): Promise<Buffer | undefined> => {
      const allowed = (await send.hooks.beforeWrite?.(indexes)) ?? new Set(indexes);
      const withheld = indexes.filter((i) => !allowed.has(i));
      if (withheld.length > 0) {
        report(send, failed(new VendorWithheldError(), withheld));
        indexes = indexes.filter((i) => allowed.has(i));
        body = undefined;
      }
      if (indexes.length === 0) return undefined;
      return (body ??= campaignBody(send.content, send.to, indexes, send.json));
    };
    const outcome = await this.retry.run(
      'campaign send',
      () =>
        this.relaySlots(async () => {
          const reply = await this.post('relay', this.relay, beforeWrite);
          return reply && parseCampaignResponse(reply);
        }),
      this.retried('relay'),
    );
    if (outcome.ok) {
      if (outcome.value === undefined) return; // every recipient withheld: nothing was sent
      const { requestId, message } = outcome.value;
      report(send, {
        ok: true,
        requestId,
        message,
        recipientIndexes: indexes,
        attempts: outcome.attempts,
        ambiguousAttempts: outcome.ambiguousAttempts,
      });
      return;
    }
    const { error } = outcome;
    if (error.status === 413 && indexes.length > 1) {
      const half = Math.ceil(indexes.length / 2);
      if (half < this.maxRecipients) {
        this.maxRecipients = half;
        this.logger.warn(
          `campaign send: 413 for ${indexes.length} recipients; sending at most ${half} per request from now on`,
        );
      }
      await Promise.all([
        this.sendChunk(send, indexes.slice(0, half)),
        this.sendChunk(send, indexes.slice(half)),
      ]);
      return;
    }
    if (error instanceof VendorAuthError) send.authError ??= error;
    report(send, failed(error, indexes, outcome.attempts, outcome.ambiguousAttempts));
  }
}
