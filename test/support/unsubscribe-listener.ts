import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Logger, type LoggerService } from '@nestjs/common';
import type { AppConfig } from '../../src/config/app-config';
import { MetricsService } from '../../src/metrics/metrics.service';
import { MemoryUnsubscribeOutbox } from '../../src/unsubscribe/memory-unsubscribe.outbox';
import type { SuppressionScope, SuppressionWriter } from '../../src/unsubscribe/suppression-writer';
import type { UnsubscribeDrain } from '../../src/unsubscribe/unsubscribe.drain';
import { UnsubscribeListener } from '../../src/unsubscribe/unsubscribe.listener';
import { UnsubscribeMetrics } from '../../src/unsubscribe/unsubscribe.metrics';
import { UnsubscribeTokens } from '../../src/unsubscribe/unsubscribe-token';
import { Unsubscriber } from '../../src/unsubscribe/unsubscriber';

export const DAY_SECONDS = 86_400;

/** The suppression list as the listener sees it: what was added, and a switch to make it fail. */
export class RecordingSuppression implements SuppressionWriter {
  readonly added: { address: string; scope: SuppressionScope }[] = [];
  failing = false;

  add(address: string, scope: SuppressionScope): Promise<void> {
    if (this.failing) return Promise.reject(new Error('store unreachable'));
    this.added.push({ address, scope });
    return Promise.resolve();
  }
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A listener on a free loopback port with the real tokens, unsubscriber and an in-memory outbox;
 * the suppression list records, the drain only counts its kicks. Every log line is kept.
 */
export class ListenerFixture {
  readonly key = randomBytes(32).toString('base64');
  readonly tokens = new UnsubscribeTokens([this.key], 90 * DAY_SECONDS);
  readonly suppression = new RecordingSuppression();
  readonly outbox = new MemoryUnsubscribeOutbox();
  readonly kicks = { count: 0 };
  readonly logs: string[] = [];
  readonly metrics = new UnsubscribeMetrics(new MetricsService());
  listener!: UnsubscribeListener;

  async start(settings: { ratePerMinute?: number; trustedProxies?: number } = {}): Promise<this> {
    const logs = this.logs;
    const keep = (message: unknown) => void logs.push(String(message));
    const capture: LoggerService = {
      log: keep,
      warn: keep,
      error: keep,
      debug: keep,
      verbose: keep,
    };
    Logger.overrideLogger(capture);
    const config = {
      unsubscribe: {
        enabled: true,
        httpPort: 0,
        ratePerMinute: settings.ratePerMinute ?? 10_000,
        trustedProxies: settings.trustedProxies ?? 0,
      },
    } as unknown as AppConfig;
    const drain = { kick: () => void this.kicks.count++ } as unknown as UnsubscribeDrain;
    const unsubscriber = new Unsubscriber(this.tokens, this.suppression, this.outbox, drain);
    this.listener = new UnsubscribeListener(config, unsubscriber, this.metrics);
    await this.listener.onApplicationBootstrap();
    return this;
  }

  async stop(): Promise<void> {
    await this.listener.onApplicationShutdown();
    Logger.overrideLogger(false);
  }

  get port(): number {
    return this.listener.port!;
  }

  /** One request through Node's client. */
  send(
    method: string,
    path: string,
    { body, headers = {} }: { body?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port: this.port, method, path, headers, agent: false },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      // A refused oversize body closes the connection while it is still being written.
      request.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
      );
      request.end(body);
    });
  }

  /** Raw bytes, for requests Node's client refuses to write; resolves with the status line. */
  raw(bytes: string | Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.port, '127.0.0.1', () => socket.end(bytes));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' || error.code === 'EPIPE'
          ? resolve(statusLine(chunks))
          : reject(error),
      );
      socket.on('close', () => resolve(statusLine(chunks)));
    });
  }

  postOneClick(token: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', `/unsubscribe/${token}`, {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
  }

  /** Whether anything at all was changed: a suppression, or an event queued. */
  get changed(): boolean {
    return this.suppression.added.length > 0 || this.outbox.size > 0;
  }
}

function statusLine(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('latin1').split('\r\n')[0];
}
