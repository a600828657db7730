import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { parseEvent, type ParseOptions } from '../inbound/event.parser';
import type { InboundMessage } from '../inbound/inbound-message';
import { typesByTopic } from '../inbound/topic-types';
import { InvalidEventError, type InvalidEventCode } from '../inbound/invalid-event.error';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import { TemplateRegistry } from '../templates/template.registry';
import { ActionRunner, type PlannedAction } from './action.runner';
import type { DispatchOutcome } from './dispatch-outcome';

/**
 * Takes one inbound record to its terminal outcome: a dead letter for input that can never
 * succeed, otherwise every template for its type run to a result event. It resolves only once
 * all of that is on Kafka; a rejection means "no outcome yet" and leaves the offset uncommitted.
 */
@Injectable()
export class DispatchService {
  private readonly logger = new Logger(DispatchService.name);
  /** Each topic accepts its own types only: who may write a topic decides what it may trigger. */
  private readonly parseOptions: ParseOptions;

  constructor(
    config: AppConfig,
    private readonly templates: TemplateRegistry,
    private readonly runner: ActionRunner,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
  ) {
    this.parseOptions = {
      maxBytes: config.consumer.maxEventBytes,
      typesByTopic: typesByTopic(config.topics),
    };
  }

  /**
   * `park` is called when the record's outcome starts waiting on a timer (a contact-list window),
   * so that the transport stops holding other records for it.
   */
  async dispatch(message: InboundMessage, park?: () => void): Promise<DispatchOutcome> {
    let event: InboundEvent;
    try {
      event = await parseEvent(message, this.parseOptions);
    } catch (error) {
      // Parsing does no I/O: whatever it throws, it would throw again. Never a failed batch.
      return this.deadLetter(message, asInvalid(error, 'INVALID', 'the event could not be read'));
    }
    const templates = this.templates.forEventType(event.type);
    if (templates.length === 0) {
      return this.deadLetter(
        message,
        new InvalidEventError('UNKNOWN_TYPE', `no template handles '${event.type}'`),
      );
    }
    let planned: PlannedAction[];
    try {
      // Templates are pure: an event one of them cannot plan will never be planned.
      planned = templates.map((template) => ({ template, action: template.plan(event) }));
    } catch (error) {
      return this.deadLetter(
        message,
        asInvalid(error, 'TEMPLATE_FAILED', `a template for '${event.type}' could not plan it`),
      );
    }
    // A record parks once one of its actions waits on a timer; its other actions run on.
    let parked = false;
    const parkOnce = (): void => {
      if (parked) return;
      parked = true;
      park?.();
    };
    const outcomes = await Promise.all(
      planned.map((p) => this.runner.run(event, p, message, parkOnce)),
    );
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

/**
 * An error from code that does no I/O, as a dead-letter reason. Only the error's class is named:
 * its message may quote the event.
 */
function asInvalid(error: unknown, code: InvalidEventCode, what: string): InvalidEventError {
  if (error instanceof InvalidEventError) return error;
  const name = error instanceof Error ? error.name : typeof error;
  return new InvalidEventError(code, `${what} (${name})`);
}
