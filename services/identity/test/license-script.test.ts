import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { COMMUNITY_LIMITS, daysLeft, readLicense } from '@bulwark/contracts';
import { TEST_LICENSE_PUBLIC_KEY } from '@bulwark/testkit';

const INSTALLATION = '6a0c9d6e-2f5b-4c34-9a53-1b1f0f5f2c11';

describe('license rules', () => {
  it('issues test licenses with the project\u2019s script, which the test key verifies', function () {
    this.timeout(60000);
    const script = path.resolve(__dirname, '../../../scripts/license.ts');
    const tsx = path.resolve(__dirname, '../../../node_modules/.bin/tsx');
    const text = execFileSync(
      tsx,
      [
        script,
        '--installation',
        INSTALLATION,
        '--days',
        '20',
        '--projects',
        '5',
        '--users',
        'unlimited',
        '--feature',
        'trackers',
      ],
      { encoding: 'utf8' },
    ).trim();
    const read = readLicense(text, TEST_LICENSE_PUBLIC_KEY);
    expect(read).to.include({ installation_id: INSTALLATION, edition: 'enterprise' });
    expect(read.limits).to.deep.equal({
      projects: 5,
      users: null,
      scanning_processes: COMMUNITY_LIMITS.scanning_processes,
    });
    expect(read.features).to.deep.equal(['trackers']);
    expect(daysLeft(read.expires_at)).to.equal(20);
  });
});
