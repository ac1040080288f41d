// What the EPSS and KEV feeds hold once read: the domain of the enrichment, which the feed readers
// produce and the store loads.
export interface EpssRecord {
  cve: string;
  epss: number;
  percentile: number;
}
export interface EpssFeed {
  modelVersion: string | null;
  scoreDate: string;
  records: EpssRecord[];
}

export interface KevRecord {
  cve: string;
  dateAdded: string;
  dueDate: string | null;
  ransomware: boolean;
}
export interface KevFeed {
  catalogVersion: string;
  records: KevRecord[];
}
