import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import {
  COMMUNITY_LIMITS,
  daysLeft,
  LicenseDocument,
  licenseState,
  readLicense,
  signLicense,
} from '@bulwark/contracts';
import { TEST_LICENSE_PRIVATE_KEY, TEST_LICENSE_PUBLIC_KEY } from '@bulwark/testkit';
import { dueExpiryNotice, installProblem, limitsInForce } from './license';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const INSTALLATION = '6a0c9d6e-2f5b-4c34-9a53-1b1f0f5f2c11';
const doc = (expiresInDays: number, over: Partial<LicenseDocument> = {}): LicenseDocument => ({
  id: 'lic-1',
  licensee: 'Example Bank',
  edition: 'enterprise',
  installation_id: INSTALLATION,
  issued_at: new Date(NOW - 100 * DAY).toISOString(),
  expires_at: new Date(NOW + expiresInDays * DAY).toISOString(),
  limits: { projects: 10, users: 5, scanning_processes: 2 },
  features: [],
  ...over,
});

describe('license rules', () => {
  it('reads a license signed with the vendor key, and refuses one changed or signed by another key', () => {
    const text = signLicense(doc(100), TEST_LICENSE_PRIVATE_KEY);
    expect(readLicense(text, TEST_LICENSE_PUBLIC_KEY)).to.deep.equal(doc(100));
    const [p, body, sig] = text.split('.');
    const tampered = Buffer.from(
      Buffer.from(body, 'base64url').toString('utf8').replace('"projects":10', '"projects":99'),
    ).toString('base64url');
    expect(() => readLicense(`${p}.${tampered}.${sig}`, TEST_LICENSE_PUBLIC_KEY)).to.throw(/signature does not verify/);
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(() => readLicense(signLicense(doc(100), other), TEST_LICENSE_PUBLIC_KEY)).to.throw(
      /signature does not verify/,
    );
    expect(() => readLicense(`${p}.${body}`, TEST_LICENSE_PUBLIC_KEY)).to.throw(/not a license/);
    expect(() => readLicense(signLicense(doc(-200), TEST_LICENSE_PRIVATE_KEY), TEST_LICENSE_PUBLIC_KEY)).to.throw(
      /expires before it was issued/,
    );
  });

  const states: [string, LicenseDocument | undefined, string, number | null][] = [
    ['no license', undefined, 'community', null],
    ['a year left', doc(365), 'valid', 365],
    ['31 days left', doc(31), 'valid', 31],
    ['30 days left', doc(30), 'expiring', 30],
    ['an hour left', doc(1 / 24), 'expiring', 1],
    ['expired a second ago', doc(-1 / 86_400), 'expired', 0],
  ];
  for (const [name, d, state, left] of states) {
    it(`${name}: ${state}, ${left ?? 'no'} days left, ${state === 'valid' || state === 'expiring' ? 'its' : 'community'} limits`, () => {
      expect(licenseState(d, NOW)).to.equal(state);
      if (d) expect(daysLeft(d.expires_at, NOW)).to.equal(left);
      expect(limitsInForce(d, NOW)).to.deep.equal(
        state === 'valid' || state === 'expiring' ? d!.limits : COMMUNITY_LIMITS,
      );
    });
  }

  const notices: [string, number, { expiringNoticeDays: number | null; expiredNoticeSent: boolean }, unknown][] = [
    ['nothing sent, 40 days left', 40, { expiringNoticeDays: null, expiredNoticeSent: false }, undefined],
    [
      'nothing sent, 30 days left',
      30,
      { expiringNoticeDays: null, expiredNoticeSent: false },
      { kind: 'expiring', threshold: 30, daysLeft: 30 },
    ],
    ['30 sent, 20 days left', 20, { expiringNoticeDays: 30, expiredNoticeSent: false }, undefined],
    [
      '30 sent, 14 days left',
      14,
      { expiringNoticeDays: 30, expiredNoticeSent: false },
      { kind: 'expiring', threshold: 14, daysLeft: 14 },
    ],
    [
      'installed with 5 days left: one notice, for 7',
      5,
      { expiringNoticeDays: null, expiredNoticeSent: false },
      { kind: 'expiring', threshold: 7, daysLeft: 5 },
    ],
    ['1 sent, expired', -1, { expiringNoticeDays: 1, expiredNoticeSent: false }, { kind: 'expired' }],
    ['expiry sent, expired', -1, { expiringNoticeDays: 1, expiredNoticeSent: true }, undefined],
  ];
  for (const [name, days, sent, due] of notices) {
    it(`expiry notice: ${name}`, () => {
      expect(dueExpiryNotice(doc(days), sent, [30, 14, 7, 1], NOW)).to.deep.equal(due);
    });
  }

  it('installs only a license of this installation that has not expired', () => {
    expect(installProblem(doc(10), INSTALLATION, NOW)).to.equal(undefined);
    expect(
      installProblem(doc(10, { installation_id: '00000000-0000-4000-8000-000000000000' }), INSTALLATION, NOW),
    ).to.match(/not this one/);
    expect(installProblem(doc(-1), INSTALLATION, NOW)).to.match(/expired at/);
  });
});
