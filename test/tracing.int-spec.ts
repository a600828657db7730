import { propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUp } from './support/events';
import { freePort } from './support/free-port';
import { produce, waitFor } from './support/kafka-helpers';
import { PipelineFixture } from './support/service-harness';
import { startService, terminate } from './support/service-process';

jest.setTimeout(90_000);

/** A W3C traceparent of a producer's span: what an upstream service would send. */
function traceparent(i: number): { traceId: string; spanId: string; header: string } {
  const traceId = `${'a'.repeat(30)}${String(i).padStart(2, '0')}`;
  const spanId = `${'b'.repeat(14)}${String(i).padStart(2, '0')}`;
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/**
 * docs/operations.md, "Traces": one consume span per record continuing the inbound traceparent; the vendor
 * request as a span of its own, linked to every event it carries; the result's publication as a
 * child of the record's span; and the result's traceparent pointing at that publication. The
 * SDK's in-memory exporter collects what the service made, on the real broker.
 */
describe('traces of a batched send', () => {
  const exporter = new InMemorySpanExporter();
  const fixture = new PipelineFixture();

  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    await fixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
    trace.disable();
    propagation.disable();
  });

  it('links one vendor request to the three traces it serves, each continued to its result', async () => {
    const events = [1, 2, 3].map((i) => signUp(i));
    const parents = [1, 2, 3].map(traceparent);
    await produce(
      fixture.kafka,
      fixture.topics.TOPIC_USER_SIGNED_UP,
      events.map((e, i) => ({
        key: e.data.userId,
        value: JSON.stringify(e),
        headers: { traceparent: parents[i].header },
      })),
    );
    // One request for all three: a linger longer than the time the three take to arrive.
    await fixture.startService({ BATCH_LINGER_MS: '1000' });
    const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
    await waitFor(() => (fixture.collector.count(sent) >= 3 ? true : undefined), {
      what: 'three results',
      timeoutMs: 60_000,
    });
    expect(fixture.sandbox.requests.filter((r) => r.path.includes('campaign'))).toHaveLength(1);

    const spans = () => exporter.getFinishedSpans();
    const ofKind = (kind: SpanKind) => spans().filter((s) => s.kind === kind);
    // The record spans end once their results are acknowledged.
    await waitFor(() => (ofKind(SpanKind.CONSUMER).length >= 3 ? true : undefined), {
      what: 'the three record spans',
    });

    const consumes = ofKind(SpanKind.CONSUMER);
    const produces = ofKind(SpanKind.PRODUCER);
    const requests = ofKind(SpanKind.CLIENT);
    expect(consumes).toHaveLength(3);
    expect(produces).toHaveLength(3);
    expect(requests).toHaveLength(1);

    const consumeOf = (traceId: string): ReadableSpan => {
      const span = consumes.find((s) => s.spanContext().traceId === traceId);
      if (!span) throw new Error(`no record span in trace ${traceId}`);
      return span;
    };
    for (const parent of parents) {
      const consume = consumeOf(parent.traceId);
      // The record's span continues the producer's trace, as its child.
      expect(consume.parentSpanContext?.spanId).toBe(parent.spanId);
      expect(consume.name).toBe(`process ${fixture.topics.TOPIC_USER_SIGNED_UP}`);
      expect(consume.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.destination.name': fixture.topics.TOPIC_USER_SIGNED_UP,
        'mailbridge.outcome': 'dispatched',
      });
      // Its result's publication is its child, in the same trace.
      const produced = produces.filter(
        (s) => s.parentSpanContext?.spanId === consume.spanContext().spanId,
      );
      expect(produced).toHaveLength(1);
      expect(produced[0].spanContext().traceId).toBe(parent.traceId);
      expect(produced[0].name).toBe(`send ${sent}`);
    }

    // The vendor request: a trace of its own, linked to the span of each event it carried.
    const [request] = requests;
    expect(request.name).toBe('send campaign');
    expect(request.parentSpanContext).toBeUndefined();
    expect(parents.map((p) => p.traceId)).not.toContain(request.spanContext().traceId);
    expect(request.links.map((l) => l.context.spanId).sort()).toEqual(
      consumes.map((s) => s.spanContext().spanId).sort(),
    );
    expect(request.attributes).toMatchObject({
      'mailbridge.events': 3,
      'mailbridge.recipients': 3,
    });

    // No span holds an address.
    const everything = JSON.stringify(
      spans().map((s) => [s.name, s.attributes, s.events, s.status, s.links]),
    );
    for (const e of events) expect(everything).not.toContain(e.data.email);

    // Each result's traceparent points at its publication's span.
    for (const message of fixture.collector.messages.filter((m) => m.topic === sent)) {
      const header = message.headers?.traceparent?.toString() ?? '';
      const [, traceId, spanId] = header.split('-');
      const publication = produces.find((s) => s.spanContext().spanId === spanId);
      expect(publication?.spanContext().traceId).toBe(traceId);
      expect(parents.map((p) => p.traceId)).toContain(traceId);
    }
  });
});

/** The parts of an OTLP/JSON trace export this test reads. */
interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; parentSpanId?: string }> }>;
  }>;
}

/**
 * docs/operations.md, "Traces": the built service, configured by the standard OTEL_* variables alone, exports
 * its spans over OTLP (here http/json to a collector stand-in on loopback), and flushes them when
 * it stops.
 */
describe('the service process with OTEL_* set', () => {
  const fixture = new PipelineFixture();
  const exports: OtlpExport[] = [];
  let collector: Server;
  let collectorUrl: string;

  beforeAll(async () => {
    await fixture.start();
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.url === '/v1/traces') exports.push(JSON.parse(body) as OtlpExport);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await fixture.stop();
    await new Promise((resolve) => collector.close(resolve));
  });

  it('exports the spans of an event over OTLP, in the trace of its traceparent', async () => {
    const event = signUp(1);
    const parent = traceparent(7);
    await produce(fixture.kafka, fixture.topics.TOPIC_USER_SIGNED_UP, [
      {
        key: event.data.userId,
        value: JSON.stringify(event),
        headers: { traceparent: parent.header },
      },
    ]);
    const service = startService({
      ...fixture.env({ HTTP_PORT: String(await freePort()) }),
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    try {
      await waitFor(
        () => (fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT) >= 1 ? true : undefined),
        { what: 'the result', timeoutMs: 60_000 },
      );
      // The batch processor exports every few seconds; the stop flushes what is left.
      expect((await terminate(service)).code).toBe(0);
    } finally {
      service.child.kill('SIGKILL');
    }
    const spans = exports.flatMap((e) => e.resourceSpans);
    const names = spans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const consume = names.find((s) => s.name === `process ${fixture.topics.TOPIC_USER_SIGNED_UP}`);
    expect(consume).toBeDefined();
    // OTLP/JSON writes ids in hex.
    expect(consume?.traceId).toBe(parent.traceId);
    expect(names.map((s) => s.name)).toEqual(
      expect.arrayContaining(['send campaign', `send ${fixture.topics.TOPIC_CAMPAIGN_SENT}`]),
    );
    const serviceNames = spans.flatMap((r) =>
      r.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue),
    );
    expect(serviceNames).toContain('mailbridge');
  });
});
