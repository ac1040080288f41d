import type { Finding } from '@bulwark/findings';
import type { EventPayload, SCAN_EVENTS } from '@bulwark/contracts';
import type { FindingsSpool } from './findings-spool';

export type ScanCompleted = EventPayload<typeof SCAN_EVENTS.scanCompleted>;

/** What an ingestion needs from scanning and the catalog, read before its transaction opens. */
export interface IngestionInput {
  scan: ScanCompleted;
  /** The name of the scan's tool ('' when the catalog knows none): it picks the deduplication rule. */
  toolName: string;
  /** The project's tags, for the gates of the policies matching them; undefined for a project the catalog does not know. */
  projectTags: string[] | undefined;
  /** The project's criticality as the catalog answered (empty from a catalog before it had one). */
  projectCriticality?: string;
  /** The scan's findings; undefined when it is read as unchanged or as its diff. */
  findings: FindingsSpool | undefined;
  /** Both sides of the scan's diff with its base, when it is read as its diff. */
  diff: DiffSides | undefined;
}

/** A rescan's findings that its base did not have, and the base's that it no longer has (at most a quarter of a scan each, scanning's bound). */
export interface DiffSides {
  added: Finding[];
  vanished: Finding[];
}
