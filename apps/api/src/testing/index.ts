export { startTestApi, type TestApi } from './test-api';
