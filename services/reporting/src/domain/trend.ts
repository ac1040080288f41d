/** A trend report's intervals: days, weeks or months, by the length of its period. */
import { SEVERITIES, Severity, TrendSection } from './snapshot';

const DAY = 86_400_000;
/** A period of all time is charted over its last year: older history says little about today. */
const ALL_TIME_DAYS = 365;
const MAX_MONTHS = 120;

export interface TrendRange {
  interval: TrendSection['interval'];
  starts: Date[];
}

export function trendRange(from: Date | null, to: Date): TrendRange {
  const earliest = new Date(to);
  earliest.setUTCMonth(earliest.getUTCMonth() - MAX_MONTHS);
  // A longer range charts its last ten years, by month: the issues service answers at most 400 intervals.
  const start = from === null ? new Date(to.getTime() - ALL_TIME_DAYS * DAY) : from < earliest ? earliest : from;
  const days = (to.getTime() - start.getTime()) / DAY;
  const interval = days <= 31 ? 'day' : days <= 190 ? 'week' : 'month';
  const starts: Date[] = [];
  for (let d = new Date(start); d < to;) {
    starts.push(new Date(d));
    if (interval === 'day') d.setUTCDate(d.getUTCDate() + 1);
    else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7);
    else d.setUTCMonth(d.getUTCMonth() + 1);
  }
  if (starts.length === 0) starts.push(start);
  return { interval, starts };
}

export function buildTrend(
  range: TrendRange,
  to: Date,
  intervals: { start: string; opened: number; fixed: number; open: number }[],
  fixTimes: { severity: string; fixed: number; meanHours: number }[],
): TrendSection {
  const ends = range.starts
    .slice(1)
    .map((d) => d.toISOString())
    .concat(to.toISOString());
  const byStart = new Map(intervals.map((i) => [Date.parse(i.start), i]));
  return {
    interval: range.interval,
    points: range.starts.map((start, index) => {
      const found = byStart.get(start.getTime());
      return {
        start: start.toISOString(),
        end: ends[index],
        opened: found?.opened ?? 0,
        fixed: found?.fixed ?? 0,
        open: found?.open ?? 0,
      };
    }),
    fix_times: SEVERITIES.map((severity: Severity) => {
      const found = fixTimes.find((f) => f.severity === severity);
      return {
        severity,
        fixed: found?.fixed ?? 0,
        mean_days: found && found.fixed > 0 ? Math.round((found.meanHours / 24) * 10) / 10 : null,
      };
    }),
  };
}
