import {
  Controller,
  Get,
  ServiceUnavailableException,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { VendorGate } from '../delivery/vendor.gate';
import { ConsumerStatus } from '../inbound/consumer-status';
import { DependencyStatus } from './dependency-status';
import { LivenessCheck } from './liveness.check';

/** How often liveness learns whether the dependencies answer. */
const DEPENDENCY_SAMPLE_MS = 1_000;

/**
 * Liveness: a restart would not help. It answers from the moment the HTTP server listens, before
 * the consumer has joined its group, and fails only when the consumer died for good or fetched
 * records stopped moving while the vendor gate is open and Redis and the broker answer (see
 * `LivenessCheck`). An unreachable dependency never fails it: a new process would wait the same.
 *
 * Readiness: able to serve now. The broker and Redis answer, the Kafka consumer has joined its
 * group and the vendor has not refused our keys (a replica that cannot send should not count as
 * serving). A 503 names every reason at once.
 */
@Controller('health')
export class HealthController implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly consumer: ConsumerStatus,
    private readonly gate: VendorGate,
    private readonly liveness: LivenessCheck,
    private readonly dependencies: DependencyStatus,
  ) {
    liveness.alsoWaitFor(this.dependencies);
  }

  onModuleInit(): void {
    this.dependencies.start(DEPENDENCY_SAMPLE_MS);
  }

  onApplicationShutdown(): void {
    this.dependencies.stop();
  }

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
    const reasons = this.dependencies.problems();
    if (!this.consumer.ready && this.consumer.reason !== undefined) {
      reasons.push(this.consumer.reason);
    }
    const gate = this.gate.state;
    if (!gate.open && gate.reason === 'auth') {
      const seen = gate.origin === 'peer' ? ' (reported by a peer replica)' : '';
      reasons.push(`the vendor refused the credentials${seen}; consumption is paused`);
    }
    if (reasons.length > 0) {
      throw new ServiceUnavailableException({ status: 'not ready', reason: reasons.join('; ') });
    }
    return { status: 'ready' };
  }
}
