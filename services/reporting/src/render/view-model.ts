/** The sections a reader sees, in display text: what HTML, PDF and DOCX each draw (report-view.ts builds it). */
export interface ReportColumn {
  label: string;
  /**
   * Relative width, for the formats that size columns themselves (PDF, DOCX): a unit is about
   * ten characters, and a table wider than the page shrinks its columns in proportion.
   */
  weight: number;
  align: 'left' | 'right';
  /** The cells are severity labels, which the formats colour. */
  severity: boolean;
  /** Where text that does not fit is cut, in formats that cut it: a path's end names the file and line. */
  cut: 'start' | 'end';
}

export interface ReportTable {
  title: string;
  columns: ReportColumn[];
  rows: string[][];
  /** Shown instead of the table when it has no rows. */
  emptyText: string;
  /** A line under the table, or null. */
  note: string | null;
}

export interface ReportField {
  label: string;
  value: string;
}

export interface ReportChart {
  title: string;
  kind: 'pie' | 'bar' | 'hbar' | 'line';
  categories: string[];
  series: { name: string; values: number[]; color?: string; colors?: string[] }[];
}

/** One issue of a detailed report, shown as a block rather than a table row. */
export interface ReportEntry {
  title: string;
  fields: ReportField[];
  /** Longer texts (description, remediation), shown in full. */
  paragraphs: ReportField[];
  history: ReportTable | null;
}

export interface ReportView {
  title: string;
  details: ReportField[];
  totals: ReportField[];
  charts: ReportChart[];
  tables: ReportTable[];
  entries: ReportEntry[];
}
