import { createServer } from 'node:net';

/** A loopback port nothing listens on right now (for a service to bind, or to find nobody). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The first of `count` consecutive loopback ports nothing listens on right now. */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 20_000);
    const ports = Array.from({ length: count }, (_, i) => first + i);
    const free = await Promise.all(ports.map(isFree));
    if (free.every(Boolean)) return first;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** Whether nothing listens on the loopback `port` right now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
