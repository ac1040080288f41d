// Issues a license for tests and demonstrations: `npx tsx scripts/license.ts --installation <id> [options]`
// prints the license text to install with PUT /api/v1/license (`--test-public-key` prints the PEM an
// installation sets as LICENSE_PUBLIC_KEY to trust the test key). It signs with the project's test vendor
// key unless --key names the PEM file of another Ed25519 private key; an installation trusts the test
// key only when LICENSE_PUBLIC_KEY is set to its public half (packages/testkit/src/license.ts).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { COMMUNITY_LIMITS } from '@bulwark/contracts';
import { issueTestLicense, TEST_LICENSE_PUBLIC_KEY } from '../packages/testkit/src/license';

const usage = `usage: npx tsx scripts/license.ts --installation <id> [--licensee <name>] [--edition <name>] [--days <n>]
       [--projects <n>] [--users <n>] [--scanning-processes <n>] [--feature <name>]... [--key <private key PEM file>]
       npx tsx scripts/license.ts --test-public-key
A limit left out is the community edition's; "unlimited" sets none. Without --key the test vendor key signs.`;

const { values } = parseArgs({
  options: {
    installation: { type: 'string' },
    licensee: { type: 'string' },
    edition: { type: 'string' },
    days: { type: 'string' },
    projects: { type: 'string' },
    users: { type: 'string' },
    'scanning-processes': { type: 'string' },
    feature: { type: 'string', multiple: true },
    key: { type: 'string' },
    'test-public-key': { type: 'boolean' },
    help: { type: 'boolean' },
  },
});

function limit(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'unlimited') return null;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number or "unlimited"`);
  return Number(value);
}

try {
  if (values['test-public-key']) {
    console.log(TEST_LICENSE_PUBLIC_KEY);
    process.exit(0);
  }
  if (values.help || !values.installation) {
    console.error(usage);
    process.exit(values.help ? 0 : 2);
  }
  const limits = {
    projects: limit('projects', values.projects),
    users: limit('users', values.users),
    scanning_processes: limit('scanning-processes', values['scanning-processes']),
  };
  const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) as Record<
    string,
    number | null
  >;
  const text = issueTestLicense(
    values.installation,
    {
      ...(values.licensee ? { licensee: values.licensee } : {}),
      ...(values.edition ? { edition: values.edition } : {}),
      ...(values.days ? { days: Number(values.days) } : {}),
      ...(values.feature ? { features: values.feature } : {}),
      limits: { ...COMMUNITY_LIMITS, ...given },
    },
    ...(values.key ? [fs.readFileSync(values.key, 'utf8')] : []),
  );
  console.log(text);
} catch (err) {
  console.error(`license: ${(err as Error).message}`);
  process.exit(2);
}
