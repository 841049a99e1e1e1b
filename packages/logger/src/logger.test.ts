import { PassThrough } from 'node:stream';
import { createLogger, LOG_KEY, snakeCaseKey } from './logger';

describe('createLogger', () => {
  it('writes JSON lines with the service name and redacts secret and content fields', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const logger = createLogger({ level: 'info', service: 'api', stream });
    logger.info('sent', { message_id: 'em_1', authorization: 'Bearer svc_live_secret', bcc: ['hidden@example.com'], html: '<p>x</p>' });
    await new Promise((resolve) => setImmediate(resolve));
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 'info', message: 'sent', service: 'api', message_id: 'em_1' });
    expect(lines[0]).not.toContain('svc_live_secret');
    expect(lines[0]).not.toContain('hidden@example.com');
    expect(lines[0]).not.toContain('<p>x</p>');
  });

  it('formats nothing for a level that is off, and writes the levels that are on', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    let formatted = 0;
    const probe = { toJSON: () => ++formatted };
    const logger = createLogger({ level: 'warn', service: 'worker', stream }).child({ job_id: 'j1' });
    logger.info('attempt recorded', { probe });
    logger.warn('slow', { probe });
    await new Promise((resolve) => setImmediate(resolve));
    expect(formatted).toBe(1);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([{ level: 'warn', message: 'slow', job_id: 'j1', probe: 1 }]);
  });

  it('writes every key in snake_case, nested ones included, and redacts by the snake_case name', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const logger = createLogger({ level: 'info', service: 'api', stream }).child({ requestId: 'req_1' });
    logger.info('request', { durationMs: 1.5, accountId: null, TLSVersion: 'TLSv1.3', apiKey: 'svc_live_secret', reply: { enhancedStatus: '2.0.0' }, hosts: [{ mxHost: 'mx' }] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'info',
      message: 'request',
      service: 'api',
      request_id: 'req_1',
      duration_ms: 1.5,
      account_id: null,
      tls_version: 'TLSv1.3',
      api_key: '[redacted]',
      reply: { enhanced_status: '2.0.0' },
      hosts: [{ mx_host: 'mx' }],
      timestamp: expect.any(String),
    });
  });

  it('leaves snake_case keys as they are', () => {
    for (const key of ['email_id', 'mx_host', 'tls_version', 'x_request_id']) expect(snakeCaseKey(key)).toBe(key);
    expect(['requestId', 'x-request-id', 'HTTPStatus'].map(snakeCaseKey)).toEqual(['request_id', 'x_request_id', 'http_status']);
    expect(['request_id', 'a1_b2'].every((key) => LOG_KEY.test(key))).toBe(true);
    expect(['requestId', '_x', 'x__y', 'x-y'].some((key) => LOG_KEY.test(key))).toBe(false);
  });
});
