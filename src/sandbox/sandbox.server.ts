import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SandboxOptions {
  /** The key the campaign endpoint expects in X-RELAY-ACCESS-TOKEN (bare or as `TOKEN <key>`). */
  relayAccessToken: string;
  /** The key the contacts endpoint expects in X-API-KEY. */
  apiKey: string;
}

export interface RecordedRequest {
  at: string;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  status: number;
  response: unknown;
}

const RELAY_PATH = '/relay/v1/email/campaign';
const CONTACTS_PATHS = new Set(['/v1/contacts', '/v1/audiences']);
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * A local stand-in for the email vendor: the two endpoints with the interface document's paths,
 * headers and bodies, plus an admin API (`/_sandbox/requests`) that lists and clears what it
 * received. Used by the local quick start, the tests and the benchmark.
 */
export class SandboxServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server: Server;

  constructor(private readonly options: SandboxOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        respond(res, 500, { message: `sandbox error: ${(error as Error).message}` });
      });
    });
    this.server.keepAliveTimeout = 60_000;
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
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.requests.length = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/_sandbox/requests') {
      if (req.method === 'DELETE') {
        this.reset();
        return respond(res, 204);
      }
      return respond(res, 200, this.requests);
    }
    if (path === '/health') return respond(res, 200, { status: 'ok' });

    const isRelay = path === RELAY_PATH;
    const isContacts = CONTACTS_PATHS.has(path);
    if (!isRelay && !isContacts) return respond(res, 404, { message: 'not found' });
    if (req.method !== 'POST') return respond(res, 405, { message: 'method not allowed' });

    const raw = await readBody(req);
    const [status, response, body] = isRelay ? this.campaign(req, raw) : this.contactList(req, raw);
    this.requests.push({
      at: new Date().toISOString(),
      method: req.method,
      path,
      headers: req.headers,
      body,
      status,
      response,
    });
    respond(res, status, response);
  }

  private campaign(req: IncomingMessage, raw: string): [number, unknown, unknown] {
    const token = req.headers['x-relay-access-token'];
    const expected = this.options.relayAccessToken;
    if (token !== expected && token !== `TOKEN ${expected}`) {
      return [401, { message: 'API key is missing or invalid' }, undefined];
    }
    const body = parseJson(raw);
    const problem = campaignProblem(body);
    if (problem) return [400, { message: problem }, body];
    return [200, { requestId: randomUUID(), message: 'Email campaign accepted' }, body];
  }

  private contactList(req: IncomingMessage, raw: string): [number, unknown, unknown] {
    if (req.headers['x-api-key'] !== this.options.apiKey) {
      return [401, { message: 'API key is missing or invalid' }, undefined];
    }
    const body = parseJson(raw);
    const problem = contactListProblem(body);
    if (problem) return [400, { message: problem }, body];
    return [200, { id: randomUUID() }, body];
  }
}

function campaignProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'body must be a JSON object';
  for (const field of ['subject', 'body', 'preview', 'campaignId'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'string')
      return `${field} must be a string`;
  }
  if (body.disableTrackingLinks !== undefined && typeof body.disableTrackingLinks !== 'boolean') {
    return 'disableTrackingLinks must be a boolean';
  }
  const recipients = body.recipients;
  if (!isRecord(recipients) || !Array.isArray(recipients.to))
    return 'recipients.to must be an array';
  for (const [i, r] of (recipients.to as unknown[]).entries()) {
    if (!isRecord(r) || typeof r.email !== 'string')
      return `recipients.to[${i}].email must be a string`;
    if (r.attributes !== undefined) {
      if (
        !isRecord(r.attributes) ||
        Object.values(r.attributes).some((v) => typeof v !== 'string')
      ) {
        return `recipients.to[${i}].attributes must map names to strings`;
      }
    }
  }
  return undefined;
}

function contactListProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'body must be a JSON object';
  if (typeof body.name !== 'string' || body.name === '') return 'name is required';
  if (body.members === undefined) return undefined;
  if (!Array.isArray(body.members)) return 'members must be an array';
  for (const [i, m] of (body.members as unknown[]).entries()) {
    if (!isRecord(m) || typeof m.email !== 'string' || m.email === '') {
      return `members[${i}].email is required`;
    }
  }
  return undefined;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function respond(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
