import type { FeedStateRecord, IntelSettingsRecord } from '../store/intel';

export const intelSettingsView = (s: IntelSettingsRecord) => ({
  enabled: s.enabled,
  epss_url: s.epssUrl,
  kev_url: s.kevUrl,
  interval_hours: s.intervalHours,
  next_run_at: s.nextRunAt,
  updated_at: s.updatedAt,
});

export const intelFeedStateView = (f: FeedStateRecord) => ({
  feed: f.feed,
  records: f.records,
  version: f.version,
  model_version: f.modelVersion,
  origin: f.origin === 'fetch' || f.origin === 'import' ? f.origin : null,
  loaded_at: f.loadedAt,
  attempted_at: f.attemptedAt,
  error: f.error,
});
