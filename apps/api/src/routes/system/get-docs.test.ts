import { startTestApi, type TestApi } from '../../testing';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /docs', () => {
  it('serves a page that loads only what this API serves: the Redoc bundle and /openapi.json', async () => {
    const page = await api.http.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("img-src 'self' data:");
    const references = [...page.text.matchAll(/(?:src|href|spec-url)="([^"]*)"/g)].map((match) => match[1]);
    expect(references).toEqual(['/openapi.json', '/docs/redoc.standalone.js']);
    for (const path of references) expect((await api.http.get(path!)).status).toBe(200);
  });

  it('serves the Redoc bundle from the redoc package', async () => {
    const script = await api.http.get('/docs/redoc.standalone.js');
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.text).toContain('Redoc');
    expect(script.text.length).toBeGreaterThan(500_000);
  });

  it('opens with the guide: the document description starts with the quick start and its sections', async () => {
    const { description } = (await api.http.get('/openapi.json')).body.info as { description: string };
    expect(description.match(/^# [A-Z][A-Za-z ]+$/gm)).toEqual(['# Quick start', '# Idempotency', '# Errors', '# Limits', '# DKIM key rotation', '# Webhook verification', '# Send over SMTP', '# Moving from Resend', '# Moving from Postmark', '# Templates', '# Receiving mail', '# Test mode']);
  });
});
