/** Findings on their way from the parsing thread to the store: `json` is a JSON array, `seqs` their sequence numbers (from 1). */
export interface FindingsBatch {
  seqs: number[];
  json: string;
  /** Final forms of findings a batch before gave: each replaces the row stored at its sequence number, if any. */
  replaces?: true;
}
