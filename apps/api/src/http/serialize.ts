/** RFC 3339 in UTC with milliseconds, as every timestamp in a response. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
