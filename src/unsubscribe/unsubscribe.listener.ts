import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config/app-config';
import {
  BAD_REQUEST,
  CONFIRM,
  DONE,
  html,
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  PAGE_HEADERS,
  REFUSED,
  TOO_LARGE,
  TOO_MANY,
  UNAVAILABLE,
  type Page,
} from './unsubscribe-page';
import { MAX_TOKEN_LENGTH } from './unsubscribe-token';
import { UnsubscribeMetrics } from './unsubscribe.metrics';
import { Unsubscriber } from './unsubscriber';

/**
 * The most a POST body may hold. RFC 8058's is `List-Unsubscribe=One-Click` (26 bytes), and the
 * body changes nothing: past this bound the request is refused unread.
 */
export const MAX_BODY_BYTES = 1024;
/** The only path served: the token's characters and nothing else, so no path trick matches. */
const PATH = new RegExp(`^/unsubscribe/([A-Za-z0-9_.-]{1,${MAX_TOKEN_LENGTH}})$`);

/**
 * The public listener: `/unsubscribe/<token>` on its own port (`UNSUBSCRIBE_HTTP_PORT`), apart
 * from `/health` and `/metrics`, so that only this is exposed to the internet. Node's own HTTP
 * server rather than a second Nest app: one route, no middleware, and every byte it answers
 * written here. `GET` (and `HEAD`) shows a confirmation page and changes nothing, since mail
 * scanners follow links; `POST` unsubscribes (RFC 8058 one-click). Nothing of a request, address
 * or token is logged or written back.
 */
@Injectable()
export class UnsubscribeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UnsubscribeListener.name);
  private server?: Server;
  private readonly limiter: RateLimiterMemory;

  constructor(
    private readonly config: AppConfig,
    private readonly unsubscriber: Unsubscriber,
    private readonly metrics: UnsubscribeMetrics,
  ) {
    // Per replica, in memory: a shared count would cost a Redis call per request an attacker makes.
    this.limiter = new RateLimiterMemory({
      points: config.unsubscribe.ratePerMinute,
      duration: 60,
    });
  }

  /** The port it listens on (`UNSUBSCRIBE_HTTP_PORT=0` picks one); undefined when off. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.unsubscribe.enabled) return;
    const server = createServer(
      { maxHeaderSize: 8192, requestTimeout: 10_000, headersTimeout: 5_000 },
      (request, response) => void this.handle(request, response),
    );
    server.keepAliveTimeout = 5_000;
    // A request Node cannot parse (a CR or LF in a header, an oversize header) gets a bare 400;
    // the default would do the same, but this keeps its bytes out of every log.
    server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.unsubscribe.httpPort, '0.0.0.0', () => resolve());
    });
    this.logger.log(`public unsubscribe listener on :${this.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.once('finish', () => this.metrics.answers.inc({ status: response.statusCode }));
    try {
      if (!(await this.admitted(request, response))) return;
      // Node takes a request line without a version as HTTP/0.9, whose "headers" are then
      // whatever followed a CR LF in the target: a request no mail client or browser sends.
      if (request.httpVersionMajor !== 1) return answer(response, BAD_REQUEST);
      const token = tokenOf(request.url ?? '');
      if (token === undefined) return answer(response, NOT_FOUND);
      if (request.method === 'POST') return await this.post(request, response, token);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return answer(response, METHOD_NOT_ALLOWED, { allow: 'GET, HEAD, POST' });
      }
      const checked = this.unsubscriber.check(token);
      answer(response, checked.done ? CONFIRM : REFUSED[checked.why]);
    } catch (error) {
      this.logger.error(`unsubscribe failed, answered 503: ${(error as Error).message}`);
      if (!response.headersSent) answer(response, UNAVAILABLE);
    }
  }

  /** Counts the request against its client's minute; answers 429 past it. */
  private async admitted(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    try {
      await this.limiter.consume(clientAddress(request, this.config.unsubscribe.trustedProxies));
      return true;
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const retryAfter = String(Math.ceil(refusal.msBeforeNext / 1000));
      answer(response, TOO_MANY, { 'retry-after': retryAfter });
      request.resume();
      return false;
    }
  }

  private async post(request: IncomingMessage, response: ServerResponse, token: string) {
    if (!(await bodyWithin(request, MAX_BODY_BYTES))) return answer(response, TOO_LARGE);
    const outcome = await this.unsubscriber.unsubscribe(token);
    answer(response, outcome.done ? DONE : REFUSED[outcome.why]);
  }
}

/** The token of `/unsubscribe/<token>` (a query string aside); undefined for any other path. */
export function tokenOf(url: string): string | undefined {
  const query = url.indexOf('?');
  return PATH.exec(query === -1 ? url : url.slice(0, query))?.[1];
}

/**
 * Who the client is: the connection's peer, or, behind `trustedProxies` proxies that append to
 * `X-Forwarded-For`, the address the nearest of them saw. Entries left of it are the client's
 * own to write, so they are never trusted.
 */
export function clientAddress(request: IncomingMessage, trustedProxies: number): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustedProxies === 0) return peer;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  return hops.length >= trustedProxies ? hops[hops.length - trustedProxies] : peer;
}

/** Reads and drops the body; false (the connection then closes) once it passes `limit`. */
function bodyWithin(request: IncomingMessage, limit: number): Promise<boolean> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        request.removeAllListeners('data');
        request.pause();
        resolve(false);
      }
    });
    request.on('end', () => resolve(true));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, page: Page, headers: Record<string, string> = {}): void {
  const body = html(page);
  response.writeHead(page.status, {
    ...PAGE_HEADERS,
    ...headers,
    'content-length': Buffer.byteLength(body),
    // A refused or oversize request may have a body still coming: do not wait to read it.
    ...(page.status >= 400 ? { connection: 'close' } : {}),
  });
  response.end(body);
}
