import { Inject, Module, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DEFAULT_CONNECTION, RedisConnection, type RedisTarget } from './redis.connection';

/**
 * The one Redis connection (`RedisConnection`); `undefined` when the service runs on the
 * in-memory store (`IDEMPOTENCY_STORE=memory`: one process, nothing to share).
 */
export const REDIS_CONNECTION = Symbol('REDIS_CONNECTION');

/**
 * The one Redis connection the idempotency store, `src/cluster/` and `src/windows/` share, made
 * from the idempotency settings, watched for hangs, and closed last: Nest stops the modules that
 * import this one first, so their last commands (an instance's retirement) still go out.
 */
@Module({
  providers: [
    {
      provide: REDIS_CONNECTION,
      inject: [AppConfig],
      useFactory: ({ idempotency }: AppConfig): RedisConnection | undefined => {
        if (idempotency.store === 'memory') return undefined;
        const { redisUrl: url, redisSentinels: sentinels, redisClusterNodes: nodes } = idempotency;
        const target: RedisTarget = sentinels
          ? {
              url,
              sentinels,
              name: idempotency.redisSentinelName,
              sentinelPassword: idempotency.redisSentinelPassword,
            }
          : nodes
            ? { url, nodes }
            : url;
        const connection = new RedisConnection(
          target,
          idempotency.keyPrefix,
          Date.now,
          DEFAULT_CONNECTION,
          idempotency.redisReplicas,
        );
        // Not awaited: a Redis that is down at start must not keep the health endpoints from
        // answering. Commands wait for the connection; readiness reports it.
        connection.connect().catch(() => undefined);
        return connection;
      },
    },
  ],
  exports: [REDIS_CONNECTION],
})
export class RedisModule implements OnModuleDestroy, OnApplicationShutdown {
  constructor(@Inject(REDIS_CONNECTION) private readonly connection: RedisConnection | undefined) {}

  /** The stop's first step (Nest's destroy hooks): an unreachable Redis is given up from here on. */
  onModuleDestroy(): void {
    this.connection?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection?.close();
  }
}
