import { expect } from 'chai';
import { ConfigError } from '../config';
import { OutboundPolicy, readOutboundPolicy, ResolvedAddress } from './policy';

describe('outbound address policy', () => {
  it('refuses loopback, link-local, unspecified and multicast by default, in IPv4, IPv6 and IPv4-mapped IPv6', () => {
    const policy = new OutboundPolicy();
    const cases: [string, boolean][] = [
      ['127.0.0.1', false],
      ['127.9.9.9', false],
      ['0.0.0.0', false],
      ['169.254.169.254', false],
      ['224.0.0.1', false],
      ['239.255.255.250', false],
      ['255.255.255.255', false],
      ['::1', false],
      ['::', false],
      ['fe80::1', false],
      ['[fe80::1%25eth0]', false],
      ['ff02::1', false],
      ['::ffff:127.0.0.1', false],
      ['::ffff:7f00:1', false],
      ['::ffff:169.254.169.254', false],
      ['[::ffff:127.0.0.1]', false],
      ['10.0.0.5', true],
      ['172.16.0.1', true],
      ['192.168.1.10', true],
      ['8.8.8.8', true],
      ['128.0.0.1', true],
      ['169.253.1.1', true],
      ['::ffff:10.0.0.1', true],
      ['2001:db8::1', true],
      ['fd00::1', true],
      ['[2001:db8::1]', true],
      ['localhost', false],
      ['', false],
      ['1.2.3', false],
    ];
    for (const [ip, allowed] of cases) expect(policy.allowsAddress(ip), ip).to.equal(allowed);
  });

  it('opens default-denied ranges by the allow list, and an explicit deny wins over an allow', () => {
    const policy = new OutboundPolicy({
      allow: ['127.0.0.1/32', '169.254.0.0/16', 'fe80::/10'],
      deny: ['10.0.0.0/8', '169.254.169.254', '2001:db8::/32'],
    });
    const cases: [string, boolean][] = [
      ['127.0.0.1', true],
      ['::ffff:127.0.0.1', true],
      ['127.0.0.2', false],
      ['::1', false],
      ['169.254.1.1', true],
      ['169.254.169.254', false],
      ['::ffff:169.254.169.254', false],
      ['fe80::1', true],
      ['10.1.2.3', false],
      ['::ffff:10.1.2.3', false],
      ['11.0.0.1', true],
      ['2001:db8::1', false],
      ['2001:db9::1', true],
    ];
    for (const [ip, allowed] of cases) expect(policy.allowsAddress(ip), ip).to.equal(allowed);
    expect(new OutboundPolicy({ allow: ['10.0.0.0/8'], deny: ['10.0.0.0/8'] }).allowsAddress('10.0.0.1')).to.equal(
      false,
    );
  });

  it('reads the lists from the environment and names a bad entry', () => {
    const policy = readOutboundPolicy({
      OUTBOUND_ALLOW_CIDRS: ' 127.0.0.1/32 , fd00::/8',
      OUTBOUND_DENY_CIDRS: '192.168.0.0/16',
    });
    expect([
      policy.allowsAddress('127.0.0.1'),
      policy.allowsAddress('192.168.1.1'),
      policy.allowsAddress('10.0.0.1'),
    ]).to.deep.equal([true, false, true]);
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => readOutboundPolicy({ OUTBOUND_DENY_CIDRS: bad }), bad).to.throw(ConfigError, /OUTBOUND_DENY_CIDRS/);
    }
  });

  it('resolves a name to addresses it then checks: any refused address refuses the name, with one neutral message', async () => {
    const answers: Record<string, ResolvedAddress[]> = {
      'git.example': [{ address: '10.0.0.7', family: 4 }],
      'mixed.example': [
        { address: '10.0.0.7', family: 4 },
        { address: '::1', family: 6 },
      ],
      'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    };
    const policy = new OutboundPolicy({}, async (host) => answers[host] ?? []);
    expect(await policy.resolve('git.example')).to.deep.equal(answers['git.example']);
    for (const host of ['mixed.example', 'metadata.example', 'nothing.example', '127.0.0.1', '[::1]']) {
      let message = '';
      await policy.resolve(host).catch((err: Error) => (message = err.message));
      expect(message, host).to.equal(`Host unreachable: could not connect to ${host}`);
    }
  });
});
