// The Jira a fuzz run's tracker names (fuzz/run.sh): the tests' contract server for Jira's REST API,
// on a port of its own. Prints its address, then serves until it is stopped.
import { startJiraContractServer } from '../packages/testkit/src/jira-contract-server';

async function main() {
  const jira = await startJiraContractServer({
    projects: ['SEC'],
    issueTypes: ['Task'],
    email: process.env.FUZZ_JIRA_EMAIL ?? 'fuzz@example.com',
    apiToken: process.env.FUZZ_JIRA_TOKEN ?? 'fuzz-seed',
  });
  console.log(jira.url);
  process.once('SIGTERM', () => void jira.close().then(() => process.exit(0)));
}

void main();
