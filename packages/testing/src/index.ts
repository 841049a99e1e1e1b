export { createTestDatabase, testRedisPrefix, databaseUrl } from './test-database';
