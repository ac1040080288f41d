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
  /** The scan's findings; undefined when the check's previous scan had the same ones (re-detected set-wise). */
  findings: FindingsSpool | undefined;
}
