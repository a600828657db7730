import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request that reached the vendor whole but whose answer never reached the service. */
export interface UnansweredRequest {
  at: number;
  path: string;
  /** `reset`: the vendor reset the connection; `abandoned`: the client gave up or died first. */
  outcome: 'reset' | 'abandoned';
  body: unknown;
}

/** Give a request its dead client left behind this long to finish at the vendor, as a real one would. */
const ORPHAN_GRACE_MS = 30_000;
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'x-relay-access-token', 'x-api-key'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after'];

/**
 * Sits between the service and the sandbox and remembers the bodies of requests that were
 * written in full but never answered (hung past the client's timeout, reset, or cut off by a
 * kill). The sandbox records such requests without their bodies; without them the harness could
 * not tell which sends were ambiguous. Accepted requests are counted from the sandbox's own
 * record, not from here. One upstream connection per request, so that a connection reset can
 * only be the sandbox's injected fault, never an idle keep-alive socket closing.
 */
export class WitnessProxy {
  readonly unanswered: UnansweredRequest[] = [];
  forwarded = 0;
  private readonly server: Server;

  constructor(private readonly upstreamPort: number) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000; // as the sandbox: the client closes idle sockets first
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readAll(req);
    } catch {
      return; // the client died mid-body: nothing reached the vendor
    }
    const path = req.url ?? '/';
    const headers: Record<string, string> = { 'content-length': String(raw.length) };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let answered = false;
    const note = (outcome: UnansweredRequest['outcome']) => {
      if (answered) return;
      answered = true;
      this.unanswered.push({ at: Date.now(), path, outcome, body: parse(raw) });
    };
    this.forwarded++;
    const upstream = request({
      host: '127.0.0.1',
      port: this.upstreamPort,
      method: req.method,
      path,
      headers,
      agent: false,
    });
    upstream.on('response', (answer) => {
      readAll(answer).then(
        (body) => {
          answered = true; // the vendor decided: its record tells whether it accepted
          const out: Record<string, string> = { 'content-length': String(body.length) };
          for (const name of FORWARDED_RESPONSE_HEADERS) {
            const value = answer.headers[name];
            if (typeof value === 'string') out[name] = value;
          }
          if (!res.destroyed) res.writeHead(answer.statusCode ?? 502, out).end(body);
        },
        () => {
          note('reset');
          req.socket.resetAndDestroy();
        },
      );
    });
    upstream.on('error', () => {
      note('reset');
      if (!req.socket.destroyed) req.socket.resetAndDestroy();
    });
    res.on('close', () => {
      if (answered) return;
      note('abandoned');
      setTimeout(() => upstream.destroy(), ORPHAN_GRACE_MS).unref();
    });
    upstream.end(raw);
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('aborted', () => reject(new Error('aborted')));
  });
}

function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
