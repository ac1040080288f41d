// The Jira a fuzz run's tracker names (fuzz/run.sh): the tests' contract server for Jira's REST API,
// on a port of its own. Prints its address, then serves until it is stopped.
import { startJiraContractServer } from '../packages/testkit/src/jira-contract-server';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`fuzz/jira.ts: ${name} is not set`);
  return value;
}

async function main() {
  const jira = await startJiraContractServer({
    projects: ['SEC'],
    issueTypes: ['Task'],
    // The account fuzz/seed.py's tracker signs in with (fuzz/run.sh gives both the same).
    email: required('FUZZ_JIRA_EMAIL'),
    apiToken: required('FUZZ_JIRA_TOKEN'),
  });
  console.log(jira.url);
  process.once('SIGTERM', () => void jira.close().then(() => process.exit(0)));
}

void main();
