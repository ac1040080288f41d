import * as grpc from '@grpc/grpc-js';
import { grpcClientDuration, grpcClientHandled, grpcServerDuration, grpcServerHandled } from '../observability/metrics';
import { Span, SpanStatusCode } from '../observability/tracing';

const codeName = (code: grpc.status) => grpc.status[code] ?? String(code);

/** Metadata as the propagator reads it: the first value of each key. */
export function metadataCarrier(md: grpc.Metadata): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const [key, values] of Object.entries(md.getMap())) carrier[key] = String(values);
  return carrier;
}

/** The span and timer of one gRPC call, on either side; `end` records it once with its status code. */
export function observedCall(
  side: 'server' | 'client',
  method: string,
  span: Span,
  target = '',
): { span: Span; end(code: grpc.status): void } {
  const started = process.hrtime.bigint();
  let ended = false;
  return {
    span,
    end(code) {
      if (ended) return;
      ended = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const name = codeName(code);
      if (side === 'server') {
        grpcServerHandled.inc({ method, code: name });
        grpcServerDuration.observe({ method, code: name }, seconds);
      } else {
        grpcClientHandled.inc({ target, method, code: name });
        grpcClientDuration.observe({ target, method, code: name }, seconds);
      }
      span.setAttribute('rpc.grpc.status_code', code);
      if (code !== grpc.status.OK) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
