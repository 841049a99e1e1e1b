import { z } from 'zod';

/** Every timestamp of a representation: RFC 3339 in UTC with milliseconds (docs/api-decisions.md, "Conventions"). */
export const timestampSchema = z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC, milliseconds.' });

/** RFC 3339 in UTC with milliseconds, as every timestamp of a representation. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
