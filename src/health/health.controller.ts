import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ConsumerStatus } from '../inbound/consumer-status';

/** Liveness: the process answers. Readiness: the Kafka consumer has joined its group. */
@Controller('health')
export class HealthController {
  constructor(private readonly consumer: ConsumerStatus) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  ready(): { status: 'ready' } {
    if (!this.consumer.ready) {
      throw new ServiceUnavailableException({ status: 'not ready', reason: this.consumer.reason });
    }
    return { status: 'ready' };
  }
}
