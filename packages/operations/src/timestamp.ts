import { z } from 'zod';

/** Every timestamp of a representation: RFC 3339 in UTC with milliseconds (docs/api-decisions.md, "Conventions"). */
export const timestampSchema = z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC, milliseconds.' });
