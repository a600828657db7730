import { Injectable } from '@nestjs/common';
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { IHeaders } from 'kafkajs';

/** Reads W3C trace context (`traceparent`, `tracestate`) from a Kafka record's headers. */
const headerGetter: TextMapGetter<IHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => {
    const value = headers[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

const headerSetter: TextMapSetter<IHeaders> = {
  set: (headers, key, value) => {
    headers[key] = value;
  },
};

/** Where a record was read: the attributes of its span. */
export interface RecordCoordinates {
  topic: string;
  partition: number;
  offset: string;
  headers: IHeaders;
}

/** A span under way and the context it makes current, for what is done on its behalf. */
export interface Traced {
  span: Span;
  context: Context;
}

/**
 * The service's spans, through the OpenTelemetry API alone: without an SDK registered
 * (`tracing-sdk.ts` registers one when OTEL_* variables ask for it) every call is a no-op and the
 * headers a record came with pass through unchanged.
 *
 * A trace follows an event: the span of the record that carried it continues the producer's
 * `traceparent`; the result's publication is its child, and the result's `traceparent` points
 * at that publication. A vendor request carries the recipients of many events, so it belongs to
 * no single trace: it is a span of its own with a link to the record span of every event in it.
 */
@Injectable()
export class Tracing {
  private readonly tracer = trace.getTracer('mailbridge');

  /** The span of handling one consumed record; the caller ends it when the record is done. */
  consume(record: RecordCoordinates, attributes: Attributes = {}): Traced {
    const parent = propagation.extract(ROOT_CONTEXT, record.headers, headerGetter);
    const span = this.tracer.startSpan(
      `process ${record.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.destination.name': record.topic,
          'messaging.destination.partition.id': String(record.partition),
          'messaging.kafka.offset': Number(record.offset),
          ...attributes,
        },
      },
      parent,
    );
    // Without an SDK the span has no valid context to pass on, and the event keeps its parent's
    // context (the root one): not a context of its own held through every record's send.
    const context = trace.isSpanContextValid(span.spanContext())
      ? trace.setSpan(parent, span)
      : parent;
    return { span, context };
  }

  /**
   * The span of publishing one record on behalf of `parent`, and the headers to publish it with:
   * `headers` plus the trace context of the new span (replacing any `traceparent` copied from
   * the source), written into `headers` itself, which the caller builds for this record alone.
   * `end` closes the span when the broker has answered.
   */
  produce(
    parent: Context | undefined,
    topic: string,
    headers: IHeaders,
  ): { headers: IHeaders; end: (error?: unknown) => void } {
    const from = parent ?? ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `send ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': topic,
        },
      },
      from,
    );
    propagation.inject(trace.setSpan(from, span), headers, headerSetter);
    return { headers, end: (error) => endSpan(span, error) };
  }

  /**
   * The trace the propagated headers of a record carry (its `traceparent`): how a contact-list
   * window, which keeps an order's headers rather than its span, links to the order later.
   */
  contextOf(headers: IHeaders): Context {
    return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  }

  /**
   * The span of a vendor request made for many events: a root of its own, linked to the span of
   * every event it carries (`links`: their contexts; events without one are left out).
   */
  vendorRequest(name: string, links: Array<Context | undefined>, attributes: Attributes): Span {
    const linked: Link[] = [];
    for (const context of links) {
      const spanContext: SpanContext | undefined = context && trace.getSpanContext(context);
      if (spanContext) linked.push({ context: spanContext });
    }
    return this.tracer.startSpan(name, {
      kind: SpanKind.CLIENT,
      root: true,
      links: linked,
      attributes,
    });
  }
}

/** Ends a span, marked as failed with the error when there is one. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    const exception = error instanceof Error ? error : new Error(JSON.stringify(error));
    span.recordException(exception);
    span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
  }
  span.end();
}
