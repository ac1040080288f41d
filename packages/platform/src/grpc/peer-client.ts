import type { InternalAuth } from '../auth';
import type { ModuleContext, ServiceName } from '../module';
import { createGrpcClient, GrpcClientHandle, ServiceClient, ServiceDef } from './grpc';

/** The client of a peer this module depends on (started before it), closed when the module stops. */
export function peerClient<D extends ServiceDef>(
  ctx: ModuleContext,
  def: D,
  peer: ServiceName,
  auth: InternalAuth,
): ServiceClient<D> {
  const handle = createGrpcClient(def, peer, ctx.peer(peer).grpcAddress, auth);
  ctx.onStop(() => handle.close());
  return handle.client;
}

/**
 * The client of a peer that may start after this module (README "Architecture"): made at the first
 * call, when the peer's address is known, and closed when the module stops.
 */
export function lazyPeerClient<D extends ServiceDef>(
  ctx: ModuleContext,
  def: D,
  peer: ServiceName,
  auth: InternalAuth,
): () => ServiceClient<D> {
  let handle: GrpcClientHandle<D> | undefined;
  ctx.onStop(() => handle?.close());
  return () => (handle ??= createGrpcClient(def, peer, ctx.peer(peer).grpcAddress, auth)).client;
}
