import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency.store';

/**
 * This process's identity in the idempotency store, kept alive by a heartbeat. Claims name the
 * instance that holds them; once its heartbeat lapses (a kill -9, a lost node) any replica may
 * take them over within `IDEMPOTENCY_INSTANCE_TTL_MS`, instead of waiting out the claim TTL.
 * A clean stop retires the instance at once.
 */
@Injectable()
export class InstanceLiveness implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(InstanceLiveness.name);
  readonly id = randomUUID();
  private handlings = 0;
  private timer?: NodeJS.Timeout;
  private beating?: Promise<void>;

  constructor(
    private readonly config: AppConfig,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
  ) {}

  /**
   * A name for one handling of a record, unique within this instance (and so, with its id, among
   * all): a count, not a random id, since one is drawn for every action of every record.
   */
  nextHandling(): string {
    this.handlings += 1;
    return this.handlings.toString(36);
  }

  /**
   * Beats now, then every quarter of the TTL. Not awaited, so that a Redis that is down at start
   * does not hold the start up: the store's commands go out in order on one connection, so this
   * first heartbeat reaches Redis before any claim of this instance does.
   */
  onModuleInit(): void {
    const ttl = this.config.idempotency.instanceTtlMs;
    this.beat(ttl);
    this.timer = setInterval(() => this.beat(ttl), Math.floor(ttl / 4));
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.store.retire(this.id).catch((e: Error) => this.failed('retire', e));
  }

  private beat(ttl: number): void {
    if (this.beating) return; // Redis is slow or away: one heartbeat waiting is enough
    this.beating = this.store
      .heartbeat(this.id, ttl)
      .catch((e: Error) => this.failed('heartbeat', e))
      .finally(() => (this.beating = undefined));
  }

  /**
   * While Redis is unreachable, commands wait rather than fail, unless a stop gave Redis up: the
   * stop says so once (the consumer's stop line), and this instance's heartbeat then lapses within
   * IDEMPOTENCY_INSTANCE_TTL_MS instead of being retired.
   */
  private failed(what: string, error: Error): void {
    if (this.store.connected) this.logger.warn(`${what}: ${error.message}`);
    else this.logger.debug(`${what}: ${error.message}`);
  }
}
