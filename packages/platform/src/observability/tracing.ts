import {
  Attributes,
  Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { env } from '../config';
import { currentSpan } from '../context';

export { SpanKind, SpanStatusCode } from '@opentelemetry/api';
export type { Span } from '@opentelemetry/api';

export const tracingConfigSchema = z.object({
  /** OTLP/HTTP base URL (`/v1/traces` is added); unset = spans are not recorded, only their ids travel. */
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url(),
  /** Full OTLP/HTTP traces URL; wins over the base URL. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: env.url(),
  OTEL_SERVICE_NAME: z.string().default('bulwark'),
});
export type TracingConfig = z.infer<typeof tracingConfigSchema>;

const propagator = new W3CTraceContextPropagator();

// Without an exporter every span is a non-recording one: it gets ids (for logs and for the
// `traceparent` passed on) and costs nothing more.
const idsOnly = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
let provider: BasicTracerProvider = idsOnly;

export interface Tracing {
  /** Where spans go, or undefined when they are not exported. */
  readonly endpoint: string | undefined;
  /** Sends what is buffered and stops exporting. */
  stop(): Promise<void>;
}

/**
 * Starts exporting spans over OTLP/HTTP (JSON) when an endpoint is configured. One exporter per
 * process: the composition root calls this once and stops it at shutdown.
 */
export function startTracing(cfg: TracingConfig): Tracing {
  const endpoint =
    cfg.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (cfg.OTEL_EXPORTER_OTLP_ENDPOINT ? `${cfg.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!endpoint) return { endpoint, stop: async () => undefined };
  const exporting = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': cfg.OTEL_SERVICE_NAME }),
    // A caller that sampled its trace out keeps it out; everything else is recorded.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }), { scheduledDelayMillis: 1000 })],
  });
  provider = exporting;
  return {
    endpoint,
    async stop() {
      if (provider === exporting) provider = idsOnly;
      await exporting.shutdown();
    },
  };
}

type Carrier = Record<string, unknown>;

/** The caller's span context from `traceparent`/`tracestate` (HTTP headers, gRPC metadata, event headers). */
export function extractTrace(carrier: Carrier): Context | undefined {
  const ctx = propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  const sc = trace.getSpanContext(ctx);
  return sc && isSpanContextValid(sc) ? ctx : undefined;
}

/** Writes `traceparent` (and `tracestate`) of `span` into `carrier`. */
export function injectTrace(span: Span | undefined, carrier: Record<string, string>): void {
  if (span && isSpanContextValid(span.spanContext()))
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
}

/** `traceparent`/`tracestate` of the current unit of work, for what it sends on. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  injectTrace(currentSpan(), headers);
  return headers;
}

export interface SpanOptions {
  kind: SpanKind;
  /** Module the span belongs to (gateway, a service, a consumer group): one process may run several. */
  component: string;
  /** A remote parent (extracted); otherwise the current unit of work's span, if any. */
  parent?: Context;
  attributes?: Attributes;
}

export function startSpan(name: string, opts: SpanOptions): Span {
  const local = currentSpan();
  const parent = opts.parent ?? (local ? trace.setSpan(ROOT_CONTEXT, local) : ROOT_CONTEXT);
  return provider
    .getTracer('bulwark')
    .startSpan(
      name,
      { kind: opts.kind, attributes: { 'bulwark.component': opts.component, ...opts.attributes } },
      parent,
    );
}

/** The trace id of a span, for logs; undefined when the span has none. */
export function traceIdOf(span: Span | undefined): string | undefined {
  const sc = span?.spanContext();
  return sc && isSpanContextValid(sc) ? sc.traceId : undefined;
}
