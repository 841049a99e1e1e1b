// Surfaces reach the database through the operations (docs/api-decisions.md, "Data layer"); only
// the process wiring opens it.
export { isDatabaseUnavailable, type Database, type Queryable } from '@mailer/db';
