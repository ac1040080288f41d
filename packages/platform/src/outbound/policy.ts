import dns from 'node:dns';
import { BlockList, isIP, LookupFunction } from 'node:net';
import { z } from 'zod';
import { loadConfig } from '../config';
import { invalid } from '../errors';

/**
 * Where a connection that a user steers (a source URL, a webhook) must never go: this host, link-local
 * addresses (cloud metadata answers on 169.254.169.254), unspecified and multicast ones. Private
 * networks stay reachable: on-premises Git servers, SIEMs and ticket systems live there.
 */
const DEFAULT_DENIED = [
  '0.0.0.0/8',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '224.0.0.0/4',
  '255.255.255.255/32',
  '::/128',
  '::1/128',
  'fe80::/10',
  'ff00::/8',
];

/** The one answer for a target that was not reached, whatever the reason: it must not tell a closed port from a refused address. */
export const unreachableMessage = (host: string) => `Host unreachable: could not connect to ${host}`;

export const OUTBOUND_REFUSED = 'EOUTBOUNDREFUSED';

/** A target the policy refuses. Its message names only the host the caller gave. */
export class OutboundRefusedError extends Error {
  readonly code = OUTBOUND_REFUSED;
  constructor(host: string) {
    super(unreachableMessage(host));
    this.name = 'OutboundRefusedError';
  }
}

interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). */
export function parseCidr(text: string): Cidr | undefined {
  const [address, bits, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (rest.length > 0 || version === 0 || address.includes('%')) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

function blockListOf(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`not an address or CIDR range: ${text}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

const cidrList = () =>
  z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    )
    .refine((list) => list.every((c) => parseCidr(c)), {
      message: 'must be a comma-separated list of addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8)',
    });

export const outboundConfigSchema = z.object({
  /** Ranges reachable even though denied by default (e.g. a Git server on this host). */
  OUTBOUND_ALLOW_CIDRS: cidrList(),
  /** Ranges never reached, whatever the allow list says. */
  OUTBOUND_DENY_CIDRS: cidrList(),
});

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a name resolves to, as the system resolver answers (hosts file included). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** `[::1]` and `fe80::1%eth0` as URLs and sockets write them, reduced to the address. */
const bareAddress = (host: string) => host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/**
 * The one outbound-address policy: explicit deny first, then explicit allow, then the default
 * denials, else allowed. So an allow range can open a default-denied one (127.0.0.1/32 for a Git
 * server on this host), and nothing reopens what the operator denied. IPv4 ranges also match
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1).
 */
export class OutboundPolicy {
  private readonly denied: BlockList;
  private readonly allowed: BlockList;
  private readonly defaults = blockListOf(DEFAULT_DENIED);

  constructor(
    rules: { allow?: string[]; deny?: string[] } = {},
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.allowed = blockListOf(rules.allow ?? []);
    this.denied = blockListOf(rules.deny ?? []);
  }

  /** Whether a connection to this address (IPv4 or IPv6) may be made. Anything not an address is refused. */
  allowsAddress(ip: string): boolean {
    const address = bareAddress(ip);
    const version = isIP(address);
    if (version === 0) return false;
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (this.denied.check(address, family)) return false;
    if (this.allowed.check(address, family)) return true;
    return !this.defaults.check(address, family);
  }

  /**
   * The addresses to connect to for `host` (a name or an address literal), resolved now: the caller
   * connects to exactly these, so no later DNS answer can slip in. Refused when any is denied.
   */
  async resolve(host: string): Promise<ResolvedAddress[]> {
    const literal = bareAddress(host);
    const version = isIP(literal);
    const addresses = version ? [{ address: literal, family: version }] : await this.resolver(host);
    if (addresses.length === 0 || addresses.some((a) => !this.allowsAddress(a.address)))
      throw new OutboundRefusedError(host);
    return addresses;
  }

  /** A `lookup` for Node sockets and HTTP clients: resolves and checks at connect time. Literals never reach a lookup: check them with `allowsAddress`. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        if (options.all) return callback(null, addresses);
        const wanted = addresses.find((a) => !options.family || a.family === options.family);
        if (!wanted)
          return callback(
            Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        callback(null, wanted.address, wanted.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** The policy of this deployment, from `OUTBOUND_ALLOW_CIDRS` and `OUTBOUND_DENY_CIDRS`. */
export function readOutboundPolicy(e: NodeJS.ProcessEnv): OutboundPolicy {
  const config = loadConfig(outboundConfigSchema, e);
  return new OutboundPolicy({ allow: config.OUTBOUND_ALLOW_CIDRS, deny: config.OUTBOUND_DENY_CIDRS });
}

/**
 * A user-given address must be one the policy lets Bulwark reach, now as at every later call: a 400
 * naming `field` otherwise. A refused address and a name that does not resolve get one answer, as every
 * outbound check gives: the check must not tell which addresses exist behind a name.
 */
export async function assertReachable(policy: OutboundPolicy, url: string, field: string, what: string): Promise<void> {
  const host = new URL(url).hostname;
  try {
    await policy.resolve(host);
  } catch {
    const problem = `cannot be reached (${unreachableMessage(host)})`;
    throw invalid(`${what} ${problem}`, [{ field, problem }]);
  }
}
