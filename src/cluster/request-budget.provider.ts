import { createHash } from 'node:crypto';
import { Logger, type FactoryProvider } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { REQUEST_BUDGET } from '../email-api/request-budget';
import type { VendorEndpointName } from '../email-api/vendor.observer';
import { MetricsService } from '../metrics/metrics.service';
import type { RedisConnection } from '../redis/redis.connection';
import { REDIS_CONNECTION } from '../redis/redis.module';
import { paceOf } from './budget.store';
import { MemoryBudgetStore } from './memory-budget.store';
import { RedisBudgetStore } from './redis-budget.store';
import { SharedRequestBudget } from './shared-request-budget';

/**
 * The store key of one endpoint's budget: replicas with the same vendor key share it, and the
 * key itself appears only as the first 16 hex digits of its SHA-256.
 */
export function budgetKey(prefix: string, endpoint: VendorEndpointName, secret: string): string {
  const hash = createHash('sha256').update(secret).digest('hex').slice(0, 16);
  return `${prefix}budget:${endpoint}:${hash}`;
}

/** The budget in Redis (shared by the replicas), or in memory on the in-memory store. */
export const requestBudgetProvider: FactoryProvider<SharedRequestBudget> = {
  provide: REQUEST_BUDGET,
  inject: [AppConfig, REDIS_CONNECTION, MetricsService],
  useFactory: (config: AppConfig, shared: RedisConnection | undefined, metrics: MetricsService) => {
    const { requestBudget: b, vendor } = config;
    const prefix = shared?.keyPrefix ?? '';
    const store = shared ? new RedisBudgetStore(shared.client) : new MemoryBudgetStore();
    const logger = new Logger(SharedRequestBudget.name);
    return new SharedRequestBudget(
      {
        contacts: {
          key: budgetKey(prefix, 'contacts', vendor.apiKey),
          pace: paceOf(b.contacts.rate, b.contacts.burst, b.marginMs),
        },
        relay: {
          key: budgetKey(prefix, 'relay', vendor.relayAccessToken),
          pace: paceOf(b.relay.rate, b.relay.burst, b.marginMs),
        },
      },
      store,
      { observer: metrics, warn: (message) => logger.warn(message) },
    );
  },
};
