import { timestamp } from 'drizzle-orm/pg-core';

/** All instants are stored with time zone and millisecond precision (the API's RFC 3339 format). */
export const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
export const createdAt = () => instant('created_at').notNull().defaultNow();
export const updatedAt = () => instant('updated_at').notNull().defaultNow();
