import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { parseEvent } from '../inbound/event.parser';
import type { InboundMessage } from '../inbound/inbound-message';
import { InvalidEventError } from '../inbound/invalid-event.error';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import { TemplateRegistry } from '../templates/template.registry';
import { ActionRunner } from './action.runner';
import type { DispatchOutcome } from './dispatch-outcome';

/**
 * Takes one inbound record to its terminal outcome: a dead letter for input that can never
 * succeed, otherwise every template for its type run to a result event. It resolves only once
 * all of that is on Kafka; a rejection means "no outcome yet" and leaves the offset uncommitted.
 */
@Injectable()
export class DispatchService {
  private readonly logger = new Logger(DispatchService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly templates: TemplateRegistry,
    private readonly runner: ActionRunner,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
  ) {}

  async dispatch(message: InboundMessage): Promise<DispatchOutcome> {
    let event: InboundEvent;
    try {
      event = await parseEvent(message, this.config.consumer.maxEventBytes);
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      return this.deadLetter(message, error);
    }
    const templates = this.templates.forEventType(event.type);
    if (templates.length === 0) {
      return this.deadLetter(
        message,
        new InvalidEventError('UNKNOWN_TYPE', `no template handles '${event.type}'`),
      );
    }
    const outcomes = await Promise.all(templates.map((t) => this.runner.run(event, t, message)));
    return {
      kind: 'dispatched',
      actions: Object.fromEntries(templates.map((t, i) => [t.name, outcomes[i]])),
    };
  }

  private async deadLetter(
    message: InboundMessage,
    error: InvalidEventError,
  ): Promise<DispatchOutcome> {
    await this.publisher.deadLetter(message, error);
    this.metrics.outcomes.inc({ outcome: 'dead_lettered' });
    this.logger.warn(
      `dead-lettered ${message.topic}/${message.partition}@${message.offset}: ${error.code}`,
    );
    return { kind: 'dead-lettered', errorCode: error.code };
  }
}
