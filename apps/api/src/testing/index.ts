export { startTestApi, type TestApi } from './test-api';
export { listenRaw, readResponse, type RawResponse, type SocketClient } from './raw-http';
