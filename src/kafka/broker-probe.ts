import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Admin } from 'kafkajs';

export interface BrokerProbeOptions {
  /** How the brokers are named in reasons and logs (their bootstrap addresses). */
  brokers: string;
  intervalMs: number;
  /** A check that has not answered by then counts as unreachable (a hung broker, a lost route). */
  timeoutMs: number;
  now?: () => number;
}

/**
 * Whether the Kafka cluster answers, asked every `intervalMs` with a metadata request for no
 * topic (kafkajs' `describeCluster`), the cheapest request a broker answers only when it serves.
 * The consumer's own view is not enough: kafkajs retries a lost connection for many seconds
 * before the consumer crashes, and the producer never says. The admin is a client of its own,
 * without retries or logs, so each check is one attempt and an outage is logged once, here.
 */
export class BrokerProbe implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(BrokerProbe.name);
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private checkStartedAt = 0;
  private problem?: string;
  private closed = false;

  constructor(
    private readonly admin: Admin,
    private readonly options: BrokerProbeOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The bootstrap brokers, as reasons and logs name them. */
  get brokers(): string {
    return this.options.brokers;
  }

  /** Why the broker counts as unreachable now; undefined while it answers (or before the first check). */
  get unreachable(): string | undefined {
    return this.problem;
  }

  onModuleInit(): void {
    this.check();
    this.timer = setInterval(() => this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.admin.disconnect().catch(() => undefined);
  }

  /** Starts a check, unless one is still waiting: that one fails once it waited too long. */
  check(): void {
    if (this.checking) {
      const waited = this.now() - this.checkStartedAt;
      if (waited >= this.options.timeoutMs) this.report(`no answer within ${waited} ms`);
      return;
    }
    this.checkStartedAt = this.now();
    this.checking = this.ask()
      .then(
        () => this.report(undefined),
        (error: Error) => this.report(error.message),
      )
      .finally(() => (this.checking = undefined));
  }

  private async ask(): Promise<void> {
    await this.admin.connect(); // a no-op while connected; reconnects after an outage
    await this.admin.describeCluster();
  }

  private report(problem: string | undefined): void {
    if (this.closed) return;
    const was = this.problem;
    this.problem = problem;
    if (problem !== undefined && was === undefined) {
      this.logger.error(`Kafka broker ${this.options.brokers} unreachable: ${problem}`);
    } else if (problem === undefined && was !== undefined) {
      this.logger.log(`Kafka broker ${this.options.brokers} reachable again`);
    }
  }
}
