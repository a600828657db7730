import { Redis } from 'ioredis';
import { RedisSuppressionStore } from '../src/suppression/redis-suppression.store';
import { uniqueName } from './support/kafka-helpers';
import { suppressionStoreContract } from './support/suppression-store.contract';

describe(RedisSuppressionStore.name, () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  const prefix = `${uniqueName('suppression-test')}:`;
  afterAll(() => redis.quit());

  suppressionStoreContract(() => {
    const store = new RedisSuppressionStore(redis, prefix);
    const stored = async () => JSON.stringify(await redis.hgetall(`${prefix}suppression`));
    return Promise.resolve({ store, stored });
  });
});
