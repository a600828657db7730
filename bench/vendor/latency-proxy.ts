import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { sampleLatency, type LatencyProfile } from './latency-profile';

/**
 * A TCP pass-through in front of the sandbox that holds every chunk of the answer for the
 * profile's latency, the way `tc netem` would: the sandbox's own code is untouched and the HTTP
 * bytes are not parsed. Chunks of one connection keep their order (a chunk never overtakes the
 * one before it), so a keep-alive connection sees one delay per answer.
 *
 * Stop-gap until the grown SandboxServer offers latency injection itself: then the vendor host
 * should pass the profile to it and drop this proxy (see docs/benchmark.md).
 */
export class LatencyProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly upstreamPort: number,
    public profile: LatencyProfile,
  ) {
    this.server = createServer((client) => this.pipe(client));
  }

  async listen(host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.upstreamPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.sockets.add(client).add(upstream);
    client.pipe(upstream);
    let lastDue = 0;
    upstream.on('data', (chunk: Buffer) => {
      const due = Math.max(Date.now() + sampleLatency(this.profile), lastDue);
      lastDue = due;
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk);
      }, due - Date.now());
    });
    const end = () => {
      // Let answers still held back reach the client before its side closes.
      setTimeout(() => client.destroy(), Math.max(0, lastDue - Date.now()) + 1);
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    upstream.on('close', end).on('error', end);
    client.on('close', () => upstream.destroy()).on('error', () => upstream.destroy());
  }
}
