export { startTestApi, type TestApi } from './test-api';
export { listenRaw, readResponse, type RawResponse } from './raw-http';
