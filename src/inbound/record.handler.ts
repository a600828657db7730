import { Injectable, Logger } from '@nestjs/common';
import type { Context } from '@opentelemetry/api';
import type { IHeaders } from 'kafkajs';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { DispatchOutcome } from '../dispatch/dispatch-outcome';
import { DispatchService } from '../dispatch/dispatch.service';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import { endSpan, Tracing } from '../tracing/tracing';
import { eventOf, type ParseOptions } from './event.parser';
import { IgnoredFields } from './ignored-fields';
import { InvalidEventError, type InvalidEventCode } from './invalid-event.error';
import { typesByTopic } from './topic-types';

/** How the handling of one record ended; both are visible on Kafka. */
export type RecordOutcome =
  | Extract<DispatchOutcome, { kind: 'dispatched' }>
  | { kind: 'dead-lettered'; errorCode: InvalidEventCode };

/** Headers copied from a source record to everything published on its behalf. */
const PROPAGATED_HEADERS = ['traceparent', 'tracestate', 'correlation-id'];

/**
 * The edge: turns one consumed record into a validated event for dispatch, or into a dead letter
 * when it can never become one. Whatever a record holds, it costs only its own offset: parsing
 * does no I/O, so anything it throws would be thrown again, and becomes a dead letter too.
 */
@Injectable()
export class RecordHandler {
  private readonly logger = new Logger(RecordHandler.name);
  /** Each topic accepts its own types only: who may write a topic decides what it may trigger. */
  private readonly parseOptions: ParseOptions;

  constructor(
    config: AppConfig,
    private readonly dispatch: DispatchService,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
    private readonly tracing: Tracing,
  ) {
    const ignored = new IgnoredFields(
      (type, fields) => metrics.fieldsIgnored(type, fields),
      (line) => this.logger.log(line),
    );
    this.parseOptions = {
      maxBytes: config.consumer.maxEventBytes,
      typesByTopic: typesByTopic(config.topics),
      onIgnoredFields: (type, unknown, unfit) => ignored.report(type, unknown, unfit),
    };
  }

  /**
   * The record's outcome. Thousands of records wait here at once (for their campaign request,
   * their vendor call), so the path holds continuations rather than a suspended async function at
   * each step: what a record holds while it waits is what the collector copies.
   */
  handle(record: ConsumedRecord): Promise<RecordOutcome> {
    const traced = this.tracing.consume(record);
    const outcome = this.outcomeOf(record, traced.context);
    // A span that records nothing (no OpenTelemetry SDK, or sampled out) has nothing to end: no
    // continuation held for it through the record's linger and vendor call.
    if (!traced.span.isRecording()) return outcome;
    return outcome.then(
      (outcome) => {
        traced.span.setAttribute('mailbridge.outcome', outcome.kind);
        endSpan(traced.span);
        return outcome;
      },
      (error: unknown) => {
        endSpan(traced.span, error);
        throw error;
      },
    );
  }

  private outcomeOf(record: ConsumedRecord, trace: Context): Promise<RecordOutcome> {
    let event: InboundEvent;
    try {
      event = eventOf(record, this.parseOptions);
    } catch (error) {
      return this.deadLetter(record, asInvalid(error));
    }
    const source = {
      key: record.key,
      headers: propagated(record.headers),
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      trace,
    };
    const planned = this.dispatch.plan(event);
    if (!Array.isArray(planned)) {
      return this.deadLetter(record, new InvalidEventError(planned.code, planned.message));
    }
    return this.dispatch.run(event, planned, source);
  }

  private async deadLetter(
    record: ConsumedRecord,
    error: InvalidEventError,
  ): Promise<RecordOutcome> {
    await this.publisher.deadLetter(record, error);
    this.metrics.deadLettered(error.code);
    this.logger.warn({
      msg: `dead-lettered: ${error.code}`,
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      errorCode: error.code,
      reason: error.message,
    });
    return { kind: 'dead-lettered', errorCode: error.code };
  }
}

function propagated(headers: IHeaders): IHeaders {
  const kept: IHeaders = {};
  for (const name of PROPAGATED_HEADERS) {
    if (headers[name] !== undefined) kept[name] = headers[name];
  }
  return kept;
}

/** The parser throws only InvalidEventError; anything else is named by its class alone. */
function asInvalid(error: unknown): InvalidEventError {
  if (error instanceof InvalidEventError) return error;
  const name = error instanceof Error ? error.name : typeof error;
  return new InvalidEventError('INVALID', `the event could not be read (${name})`);
}
