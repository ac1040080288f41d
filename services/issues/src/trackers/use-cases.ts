import { OutboundPolicy } from '@bulwark/platform';
import { TrackerAccess, TrackerAccessDeps } from './access';
import { PushSettings, TrackerPush } from './push';
import { TrackerSettings } from './settings';
import { TrackerSync } from './sync';
import { TrackerTickets } from './tickets';

/** The task-tracker use cases, each its own class over one shared access to trackers. */
export interface TrackerUseCases {
  settings: TrackerSettings;
  tickets: TrackerTickets;
  sync: TrackerSync;
  push: TrackerPush;
}

export function trackerUseCases(
  deps: TrackerAccessDeps & { policy: OutboundPolicy; push: PushSettings },
): TrackerUseCases {
  const access = new TrackerAccess(deps);
  const { data, secrets, policy } = deps;
  return {
    settings: new TrackerSettings({ data, secrets, policy, access }),
    tickets: new TrackerTickets({ data, access }),
    sync: new TrackerSync({ data, access }),
    push: new TrackerPush({ data, access, settings: deps.push }),
  };
}
