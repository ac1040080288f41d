import { isIP } from 'node:net';

/** IPv4 ranges a webhook must not reach: this host, link-local (cloud metadata), unspecified, multicast, broadcast. */
const BLOCKED_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x7f000000, 8], // 127.0.0.0/8
  [0xa9fe0000, 16], // 169.254.0.0/16, e.g. 169.254.169.254
  [0xe0000000, 4], // 224.0.0.0/4
  [0xffffffff, 32],
];

function v4(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

/**
 * Whether an address is one a webhook may not call: loopback, link-local (where cloud metadata
 * services answer), unspecified or multicast, in IPv4, IPv6 or IPv4-mapped IPv6. Private networks
 * stay reachable: that is where SIEMs and ticket systems of an on-premises installation live.
 */
export function isBlockedAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return isBlockedAddress(mapped[1]);
  if (isIP(ip) === 4) {
    const n = v4(ip);
    return BLOCKED_V4.some(([base, bits]) => (bits === 32 ? n === base : n >>> (32 - bits) === base >>> (32 - bits)));
  }
  const lower = ip.toLowerCase();
  return lower === '::' || lower === '::1' || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}
