import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { FaultInjector } from './fault-injector';
import { InboxPage } from './inbox.page';
import { RequestRecord } from './request-record';
import {
  campaignProblem,
  contactListProblem,
  memberCount,
  recipientCount,
} from './request-validation';
import {
  CONTACTS_PATHS,
  RELAY_PATH,
  type FaultConfig,
  type RecordedRequest,
  type SandboxOptions,
  type SandboxStats,
} from './sandbox-options';

export type { RecordedRequest, SandboxOptions } from './sandbox-options';

/** Far above anything a sane client sends; the 413 fault is for the vendor's own limit. */
const HARD_BODY_LIMIT = 64 * 1024 * 1024;
const TOO_LARGE = 'body too large';

interface Answer {
  status: number;
  response: unknown;
  body?: unknown;
  accepted?: { campaign?: number; members?: number };
}

/**
 * A local stand-in for the email vendor: the two endpoints with the interface document's paths,
 * headers and bodies; faults on demand; a record and an admin API under `/_sandbox/`; and an
 * inbox page under `/inbox`. Used by the local quick start, the tests and the benchmark. Binds
 * to loopback: its admin API has no authentication.
 */
export class SandboxServer {
  private readonly server: Server;
  private readonly record: RequestRecord;
  private readonly faults: FaultInjector;
  private readonly inbox: InboxPage;
  /** Kept apart from the record: a reset while a request is held must not make it negative. */
  private readonly held = new Map<string, number>();

  constructor(private readonly options: SandboxOptions) {
    this.record = new RequestRecord(options.recordLimit ?? 10_000);
    this.faults = new FaultInjector(options.faults, options.random, options.now);
    this.inbox = new InboxPage(options.mergeEscapesHtml ?? true);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        const message = (error as Error).message;
        send(res, message === TOO_LARGE ? 413 : 500, { message: `sandbox: ${message}` });
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  /** The kept requests, oldest first (see `recordLimit`). */
  get requests(): RecordedRequest[] {
    return this.record.entries;
  }

  get stats(): SandboxStats {
    return { ...this.record.stats(), held: Object.fromEntries(this.held) };
  }

  /** Replaces the faults; the same as `PUT /_sandbox/faults`. */
  setFaults(faults: FaultConfig): void {
    this.faults.set(faults);
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return this.url;
  }

  get url(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections(); // hung requests included
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Forgets the record and the counters; faults stay as they are. */
  reset(): void {
    this.record.reset();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const isRelay = path === RELAY_PATH;
    if (isRelay || CONTACTS_PATHS.has(path)) return this.vendor(req, res, path, isRelay);
    if (path.startsWith('/_sandbox/')) return this.admin(req, res, path);
    if (req.method !== 'GET') return send(res, 405, { message: 'method not allowed' });
    if (path === '/health') return send(res, 200, { status: 'ok' });
    if (path === '/' || path === '/inbox') {
      return html(res, 200, this.inbox.list(this.record.entries, this.stats.received));
    }
    const seq = /^\/inbox\/(\d+)$/.exec(path)?.[1];
    const entry = seq === undefined ? undefined : this.record.find(Number(seq));
    if (entry?.status === 200) return html(res, 200, this.inbox.detail(entry));
    return send(res, 404, { message: 'not found' });
  }

  private async vendor(req: IncomingMessage, res: ServerResponse, path: string, isRelay: boolean) {
    if (req.method !== 'POST') return send(res, 405, { message: 'method not allowed' });
    const raw = await readBody(req);
    const base = { method: 'POST', path, headers: req.headers, body: undefined };
    const decision = this.faults.decide();
    if (decision.kind === 'hang') {
      // Never answered; the client's timeout or close() ends it.
      return this.record.add({ ...base, status: 0, response: undefined, fault: 'hang' });
    }
    if (decision.latencyMs > 0) await this.hold(path, decision.latencyMs);
    if (decision.kind === 'reset') {
      this.record.add({ ...base, status: 0, response: undefined, fault: 'reset' });
      req.socket.resetAndDestroy();
      return;
    }
    if (decision.kind === 'status') {
      const response = { message: `sandbox fault: ${decision.status}` };
      this.record.add({ ...base, status: decision.status, response, fault: decision.fault });
      return send(res, decision.status, response, decision.headers);
    }
    const answer = isRelay ? this.campaign(req, raw) : this.contactList(req, raw);
    const fault = answer.status === 413 ? 'too-large' : undefined;
    this.record.add({ ...base, ...answer, body: answer.body, fault }, answer.accepted);
    send(res, answer.status, answer.response);
  }

  private async hold(path: string, ms: number): Promise<void> {
    this.held.set(path, (this.held.get(path) ?? 0) + 1);
    try {
      await delay(ms);
    } finally {
      const left = (this.held.get(path) ?? 1) - 1;
      if (left > 0) this.held.set(path, left);
      else this.held.delete(path);
    }
  }

  private campaign(req: IncomingMessage, raw: Buffer): Answer {
    const token = req.headers['x-relay-access-token'];
    const expected = this.options.relayAccessToken;
    if (token !== expected && token !== `TOKEN ${expected}`) return unauthorised();
    const body = parseJson(raw);
    const problem = campaignProblem(body);
    if (problem) return { status: 400, response: { message: problem }, body };
    const recipients = recipientCount(body);
    const tooLarge = this.faults.tooLarge(recipients, raw.length);
    if (tooLarge) return { status: 413, response: { message: tooLarge }, body };
    const response = { requestId: randomUUID(), message: 'Email campaign accepted' };
    return { status: 200, response, body, accepted: { campaign: recipients } };
  }

  private contactList(req: IncomingMessage, raw: Buffer): Answer {
    if (req.headers['x-api-key'] !== this.options.apiKey) return unauthorised();
    const body = parseJson(raw);
    const problem = contactListProblem(body);
    if (problem) return { status: 400, response: { message: problem }, body };
    const tooLarge = this.faults.tooLarge(0, raw.length);
    if (tooLarge) return { status: 413, response: { message: tooLarge }, body };
    return {
      status: 200,
      response: { id: randomUUID() },
      body,
      accepted: { members: memberCount(body) },
    };
  }

  private async admin(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const route = `${req.method} ${path}`;
    switch (route) {
      case 'GET /_sandbox/requests':
        return send(res, 200, this.record.entries);
      case 'DELETE /_sandbox/requests':
        this.reset();
        return send(res, 204);
      case 'GET /_sandbox/stats':
        return send(res, 200, this.stats);
      case 'GET /_sandbox/faults':
        return send(res, 200, this.faults.current);
      case 'DELETE /_sandbox/faults':
        this.faults.set({});
        return send(res, 204);
      case 'PUT /_sandbox/faults':
        try {
          this.faults.set(JSON.parse((await readBody(req)).toString('utf8')) as unknown);
        } catch (error) {
          return send(res, 400, { message: (error as Error).message });
        }
        return send(res, 200, this.faults.current);
      default:
        return send(res, 404, { message: 'not found' });
    }
  }
}

function unauthorised(): Answer {
  return { status: 401, response: { message: 'API key is missing or invalid' } };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > HARD_BODY_LIMIT) throw new Error(TOO_LARGE);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function html(res: ServerResponse, status: number, page: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page),
    // Belt and braces to the escaping: no script runs on these pages, nothing loads from outside.
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(page);
}
