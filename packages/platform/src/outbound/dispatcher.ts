import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { OutboundPolicy, OutboundRefusedError } from './policy';

/**
 * An undici dispatcher whose every connection passes the outbound policy: names are resolved and
 * checked by the connection's own lookup (so a later DNS answer cannot slip in between), address
 * literals, which Node connects to without a lookup, are checked here. For any HTTP call to an
 * address a user gave (webhooks, server tools such as SonarQube or Dependency-Track, an OIDC issuer).
 */
export function outboundDispatcher(policy: OutboundPolicy, tls: { ca?: string } = {}): Agent {
  // A CA bundle given replaces the system ones, for a server whose certificate an internal CA signed.
  const connect = buildConnector({ lookup: policy.lookup, ...(tls.ca ? { ca: tls.ca } : {}) });
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !policy.allowsAddress(host)) return callback(new OutboundRefusedError(options.hostname), null);
      return connect(options, callback);
    },
  });
}
