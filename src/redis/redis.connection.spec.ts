import { RedisConnection, secretsOf } from './redis.connection';

describe(RedisConnection.name, () => {
  it('removes the password of its URL, as written and decoded, from what it reports', async () => {
    // lazyConnect: nothing is dialled until connect(), so no Redis is needed here.
    const connection = new RedisConnection('redis://user:p%40ss-w0rd@127.0.0.1:6379/0', 'p:');
    try {
      expect(connection.redact('auth p%40ss-w0rd failed; p@ss-w0rd refused')).toBe(
        'auth [redacted] failed; [redacted] refused',
      );
      expect(connection.connectionProblem).toBe('not connected (connection wait)');
    } finally {
      await connection.close();
    }
  });

  it('fails a command at once after a stop gave up a cluster that never learned its slots', async () => {
    // Port 1: refused, so the cluster client never learns its slots, as when a stop comes while
    // it connects.
    const connection = new RedisConnection(
      { url: 'redis://cluster', nodes: [{ host: '127.0.0.1', port: 1 }] },
      'p:',
    );
    connection.client.on('error', () => undefined);
    const connecting = connection.connect().catch(() => undefined);
    connection.stop();
    await connecting;
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise((resolve) => (timer = setTimeout(() => resolve('hung'), 5_000)));
    const answer = connection.client.del('p:instance:1').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    try {
      expect(await Promise.race([answer, hung])).toMatch(/isn't ready|closed/);
    } finally {
      clearTimeout(timer);
      await connection.close();
    }
  });

  it('finds no secret in a URL without a password, or in no URL at all', () => {
    expect(secretsOf('redis://127.0.0.1:6379')).toEqual([]);
    expect(secretsOf('not a url')).toEqual([]);
    expect(secretsOf('redis://:plain@host:6379')).toEqual(['plain']);
  });
});
