/**
 * The system a benchmark of the issues service runs against, and the URL of the issues database to
 * fill: BENCH_MODE=scaled, identity, the services and two gateways as separate processes on the
 * PostgreSQL, Kafka and Redis of deploy/local/infra.sh; BENCH_MODE=all, one TARGET=all process whose
 * embedded PostgreSQL is reached through the socket in its data directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { infra, RunningSystem, startAllModeProcess, startScaledMode } from '@bulwark/testkit';

export async function startSystem(
  mode: string,
  settings: Record<string, string>,
): Promise<{ system: RunningSystem; issuesDb: string }> {
  const i = infra();
  if (mode === 'all') {
    const system = await startAllModeProcess(settings);
    const server = path.join(system.dataDir, 'postgres');
    const password = fs.readFileSync(path.join(server, 'password'), 'utf8').trim();
    const socket = encodeURIComponent(path.join(server, 'run'));
    return {
      system,
      issuesDb: `postgres://bulwark:${encodeURIComponent(password)}@localhost/bulwark_issues?host=${socket}`,
    };
  }
  if (!i.pgUrl || !i.redisUrl || !i.kafkaBrokers)
    throw new Error('PostgreSQL, Redis and Kafka are needed: eval "$(bash deploy/local/infra.sh env)"');
  const system = await startScaledMode(
    { ...i, pgUrl: i.pgUrl, redisUrl: i.redisUrl, kafkaBrokers: i.kafkaBrokers, scannerPath: i.scannerPath ?? '' },
    settings,
  );
  return { system, issuesDb: system.env.ISSUES_DATABASE_URL };
}
