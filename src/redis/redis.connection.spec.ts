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

  it('finds no secret in a URL without a password, or in no URL at all', () => {
    expect(secretsOf('redis://127.0.0.1:6379')).toEqual([]);
    expect(secretsOf('not a url')).toEqual([]);
    expect(secretsOf('redis://:plain@host:6379')).toEqual(['plain']);
  });
});
