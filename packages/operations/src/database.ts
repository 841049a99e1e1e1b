// Surfaces reach the database through the operations (docs/api-decisions.md, "Data layer"); only
// the process wiring opens it. Batcher groups concurrent statements of one kind; withinStall bounds
// one the driver may leave unanswered.
export { Batcher, isDatabaseUnavailable, withinStall, type Database, type Queryable } from '@mailer/db';
