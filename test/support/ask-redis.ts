import { Redis } from 'ioredis';

/**
 * Runs one command on the Redis on a loopback `port` over a connection of its own, then closes
 * it: one try, no reconnecting, so that a node starting or killed rejects at once. What the
 * Sentinel group, the Redis Cluster and the specs around them ask a node directly.
 */
export async function askRedis(
  port: number,
  password: string | undefined,
  ...command: string[]
): Promise<unknown> {
  const client = new Redis(port, '127.0.0.1', {
    password,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  // A refused connection rejects the command below; without a listener ioredis would also print
  // it as an unhandled error event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command[0], ...command.slice(1));
  } finally {
    client.disconnect();
  }
}
