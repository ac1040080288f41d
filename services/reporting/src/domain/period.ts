/** `date` moved back `months` calendar months, on the same day or the month's last (31 March less a month is 28 February). */
function monthsBefore(date: Date, months: number): Date {
  const d = new Date(date);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

/** The start of a report period ending at `end` (null: all time), in UTC calendar units. */
export function periodStart(period: string, end: Date): Date | null {
  const days = (n: number) => new Date(end.getTime() - n * 86_400_000);
  switch (period) {
    case 'day':
      return days(1);
    case 'week':
      return days(7);
    case 'month':
      return monthsBefore(end, 1);
    case 'quarter':
      return monthsBefore(end, 3);
    case 'year':
      return monthsBefore(end, 12);
    default:
      return null;
  }
}
