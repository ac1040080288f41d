import { ErrorRecorder, Logger, notFound, SecretBox, ServiceData } from '@bulwark/platform';
import { TrackerCredentials } from '@bulwark/contracts';
import { CallerScope } from '../caller-scope';
import { recordIntegrationFailure, IntegrationFailure } from '../integrations/failures';
import type { TrackerHttp } from '../integrations/http';
import { JiraTracker } from '../integrations/jira';
import { TrackerPort } from '../integrations/port';
import { RedmineTracker } from '../integrations/redmine';
import { TrackerRecord, trackerStore } from '../store/trackers';
import { trackerProjects } from './scope';

export interface TrackerAccessDeps {
  data: ServiceData;
  secrets: SecretBox;
  http: TrackerHttp;
  log: Logger;
  errors: ErrorRecorder;
}

/**
 * What every tracker use case shares: a tracker found by id (and as a caller may see or change it),
 * its port to speak to the tracker with its opened credentials, and the record of a failed call.
 */
export class TrackerAccess {
  constructor(private readonly deps: TrackerAccessDeps) {}

  async find(id: string): Promise<TrackerRecord> {
    const t = await trackerStore.get(this.deps.data.db, id);
    if (!t) throw notFound(`Tracker ${id}`);
    return t;
  }

  /** The tracker if the caller sees it (404 otherwise). */
  async seen(scope: CallerScope, id: string): Promise<TrackerRecord> {
    const t = await this.find(id);
    if (!scope.sees(trackerProjects(t.projects))) throw notFound(`Tracker ${id}`);
    return t;
  }

  /** The tracker if the caller sees it (404 otherwise) and may change it (403 otherwise). */
  async changeable(scope: CallerScope, id: string): Promise<TrackerRecord> {
    const t = await this.seen(scope, id);
    scope.assertMayChange(trackerProjects(t.projects), `tracker ${id}`);
    return t;
  }

  port(t: TrackerRecord): TrackerPort {
    const credentials = JSON.parse(this.deps.secrets.open(t.credentialsSealed)) as TrackerCredentials;
    return t.type === 'jira'
      ? new JiraTracker({ http: this.deps.http, base: t.url, credentials, version: t.jiraApiVersion })
      : new RedmineTracker(this.deps.http, t.url, credentials);
  }

  failure(
    t: TrackerRecord,
    operation: string,
    error: unknown,
    extra: Pick<IntegrationFailure, 'ticket_key' | 'issue_ids' | 'gave_up'> = {},
  ): void {
    recordIntegrationFailure(this.deps.log, this.deps.errors, {
      tracker_id: t.id,
      tracker_type: t.type,
      operation,
      error,
      ...extra,
    });
  }
}
