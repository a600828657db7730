import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { VendorGate } from '../dispatch/vendor.gate';
import { ConsumerStatus } from '../inbound/consumer-status';

/**
 * Liveness: the process answers. Readiness: the Kafka consumer has joined its group and the
 * vendor has not refused our keys (a replica that cannot send should not count as serving).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly consumer: ConsumerStatus,
    private readonly gate: VendorGate,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
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
    return { status: 'ready' };
  }
}
