import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import {
  IDEMPOTENCY_STORE,
  type IdempotencyStore,
} from '../dispatch/idempotency/idempotency.store';
import { VendorGate } from '../dispatch/vendor.gate';
import { ConsumerStatus } from '../inbound/consumer-status';
import { LivenessCheck } from './liveness.check';

/**
 * Liveness: a restart would not help. It answers from the moment the HTTP server listens, before
 * the consumer has joined its group, and fails only when the consumer died for good or fetched
 * records stopped moving while the vendor is reachable (see `LivenessCheck`).
 *
 * Readiness: able to serve now. The Kafka consumer has joined its group and the vendor has not
 * refused our keys (a replica that cannot send should not count as serving).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly consumer: ConsumerStatus,
    private readonly gate: VendorGate,
    private readonly liveness: LivenessCheck,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    const problem = this.liveness.problem();
    if (problem !== undefined) {
      throw new ServiceUnavailableException({ status: 'failing', reason: problem });
    }
    return { status: 'ok' };
  }

  @Get('ready')
  ready(): { status: 'ready' } {
    if (!this.consumer.ready) {
      throw new ServiceUnavailableException({ status: 'not ready', reason: this.consumer.reason });
    }
    const gate = this.gate.state;
    if (!gate.open && gate.reason === 'auth') {
      throw new ServiceUnavailableException({
        status: 'not ready',
        reason: 'the vendor refused the credentials; consumption is paused',
      });
    }
    if (!this.store.connected) {
      throw new ServiceUnavailableException({
        status: 'not ready',
        reason: 'the idempotency store (Redis) is unreachable; sends wait for it',
      });
    }
    return { status: 'ready' };
  }
}
