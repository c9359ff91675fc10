const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** Date.parse quietly rolls 2027-02-30 over to March; a real calendar day is required. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A valid Date, or an ISO-8601 timestamp with a time zone on a real calendar
 * day, as a Date; null for anything else.
 */
export function isoInstant(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : new Date(value.getTime());
  const match = typeof value === 'string' ? ISO_8601.exec(value) : null;
  const at = match && isCalendarDate(+match[1], +match[2], +match[3]) ? new Date(match[0]) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}
