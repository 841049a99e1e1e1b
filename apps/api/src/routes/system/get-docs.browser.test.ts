import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { listenRaw, startTestApi, type TestApi } from '../../testing';

/** A Chromium on PATH, if this machine has one (`apt-get install chromium`); without one the check is skipped. */
const chromium = ['chromium', 'chromium-browser', 'google-chrome']
  .flatMap((name) => (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name)))
  .find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

let api: TestApi;
let server: Awaited<ReturnType<typeof listenRaw>>;

(chromium ? describe : describe.skip)('GET /docs in headless Chromium', () => {
  beforeAll(async () => {
    api = await startTestApi();
    server = await listenRaw(api);
  });
  afterAll(async () => {
    await server.close();
    await api.close();
  });

  it('renders the guide, then every operation with its example request', async () => {
    const { stdout } = await promisify(execFile)(
      chromium!,
      ['--headless', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=15000', '--dump-dom', `${server.url}/docs`],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stdout).toContain('Quick start');
    expect(stdout.indexOf('Quick start')).toBeLessThan(stdout.indexOf('Accept a message for delivery.'));
    expect(stdout).toContain('Your sign-in code');
    expect(stdout).toContain('rate_limit_exceeded');
    expect(stdout).toContain('Send over SMTP');
    expect(stdout).toContain('EMAIL_HOST_USER');
    expect(stdout).not.toContain('Something went wrong');
  }, 60_000);
});
