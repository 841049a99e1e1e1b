import { PassThrough } from 'node:stream';
import { createLogger } from './logger';

describe('createLogger', () => {
  it('writes JSON lines with the service name and redacts secret and content fields', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const logger = createLogger({ level: 'info', service: 'api', stream });
    logger.info('sent', { messageId: 'em_1', authorization: 'Bearer svc_live_secret', bcc: ['hidden@example.com'], html: '<p>x</p>' });
    await new Promise((resolve) => setImmediate(resolve));
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 'info', message: 'sent', service: 'api', messageId: 'em_1' });
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
});
