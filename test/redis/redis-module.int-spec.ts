import { randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { ConfigModule } from '../../src/config/config.module';
import { loadConfig } from '../../src/config/config.loader';
import { IdempotencyModule } from '../../src/idempotency/idempotency.module';
import { IDEMPOTENCY_STORE } from '../../src/idempotency/idempotency.store';
import { InstanceLiveness } from '../../src/idempotency/instance-liveness';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-idempotency.store';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { RedisConnection } from '../../src/redis/redis.connection';
import { REDIS_CONNECTION } from '../../src/redis/redis.module';

async function idempotencyOn(env: Record<string, string>) {
  const config = loadConfig({
    MAILBRIDGE_MODE: 'local',
    SENDER_FROM_EMAIL: 'hello@shop.example',
    ...env,
  });
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), IdempotencyModule],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('RedisModule', () => {
  it('opens no connection on the in-memory store', async () => {
    const moduleRef = await idempotencyOn({ IDEMPOTENCY_STORE: 'memory' });
    try {
      expect(moduleRef.get(REDIS_CONNECTION, { strict: false })).toBeUndefined();
      expect(moduleRef.get(IDEMPOTENCY_STORE, { strict: false })).toBeInstanceOf(
        MemoryIdempotencyStore,
      );
    } finally {
      await moduleRef.close();
    }
  });

  it('lends its one connection to the store, and closes it after the instance retired', async () => {
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const moduleRef = await idempotencyOn({
      IDEMPOTENCY_STORE: 'redis',
      REDIS_URL: 'redis://127.0.0.1:6379',
      IDEMPOTENCY_KEY_PREFIX: prefix,
    });
    const admin = new Redis('redis://127.0.0.1:6379');
    try {
      const connection = moduleRef.get<RedisConnection>(REDIS_CONNECTION, { strict: false });
      const store = moduleRef.get<RedisIdempotencyStore>(IDEMPOTENCY_STORE, { strict: false });
      expect(connection).toBeInstanceOf(RedisConnection);
      expect(connection.keyPrefix).toBe(prefix);
      expect(store.client).toBe(connection.client);
      const instance = moduleRef.get(InstanceLiveness, { strict: false }).id;
      const liveKey = `${prefix}instance:${instance}`;
      await store.claim('evt:t', { instance, handling: '1' }, 30_000); // waits for the connection
      expect(await admin.exists(liveKey)).toBe(1);
      await moduleRef.close();
      // The store's module stopped first: its retirement went out before the connection closed.
      expect(await admin.exists(liveKey)).toBe(0);
      expect(connection.client.status).toBe('end');
    } finally {
      await admin.del(`${prefix}evt:t`);
      admin.disconnect();
    }
  });
});
