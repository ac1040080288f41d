/** Each severity's rank, as issue_records.severity_rank keeps it (5 the most severe). */
export const SEVERITY_RANK: Readonly<Record<string, number>> = { critical: 5, high: 4, medium: 3, low: 2, info: 1 };

const NAME_OF_RANK = new Map(Object.entries(SEVERITY_RANK).map(([name, rank]) => [rank, name]));

/** The severity of a rank; undefined for a rank that is none. */
export const severityOfRank = (rank: number): string | undefined => NAME_OF_RANK.get(rank);
