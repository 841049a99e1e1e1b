export * from './schema';
export { openDatabase, type Database, type DatabaseHandle, type Tx, type DbOrTx } from './database';
export { migrateDatabase, ensureDatabase, MIGRATIONS_FOLDER } from './migrate';
export * from './stores/accounts-store';
export * from './stores/domains-store';
export { after, newestFirst } from './stores/keyset';
export * from './stores/senders-store';
export { purgeExpired, type RetentionPolicy, type RetentionResult } from './stores/retention-store';
