import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { daysSinceEpoch, signLinkToken } from '@mailer/domain';
import { trackedLinks } from '@mailer/message';
import { listenRaw, startTestApi, type TestApi } from '../../testing';
import { sendingAccount } from '../../testing/sending-account';

/**
 * A real browser (Debian's Chromium) following a tracked link (docs/api-decisions.md, "Opens and
 * clicks"): it lands on the link's original page, served here, and the click is recorded.
 */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let api: TestApi;
let server: Awaited<ReturnType<typeof listenRaw>>;
let landing: Server;
let landingUrl: string;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi();
  server = await listenRaw(api);
  landing = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!DOCTYPE html><title>Sale</title><h1>The sale</h1><p id="query">${new URL(req.url!, 'http://x').search}</p>`);
  }).listen(0, '127.0.0.1');
  await once(landing, 'listening');
  landingUrl = `http://127.0.0.1:${(landing.address() as AddressInfo).port}/sale?from=mail&x=1`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => landing?.close(resolve));
  await server?.close();
  await api?.close();
});

it('lands on the original page of a tracked link, and the click is recorded', async () => {
  const shop = await sendingAccount(api, { domain: 'browser-tracking.test' });
  const html = `<p><a href="${landingUrl.replace('&', '&amp;')}">The sale</a></p>`;
  const sent = await shop.send(shop.message({ to: ['reader@example.test'], content: { html }, track: { clicks: true } }));
  expect(sent.status).toBe(202);
  expect(trackedLinks(html)).toEqual([landingUrl]);
  // As the daemon leaves a delivery a remote server accepted; the token as its copy carries it.
  const [delivery] = await api.deps.db`update deliveries set status = 'accepted' where email_id = ${sent.body.id} returning id`;
  const token = signLinkToken({ deliveryId: delivery!.id, use: 'click', link: 0, issuedDay: daysSinceEpoch(new Date()) }, api.config.encryptionKey);

  const page = await browser.newPage();
  const response = await page.goto(`${server.url}/c/${token}`);
  expect(response!.status()).toBe(200);
  expect(page.url()).toBe(landingUrl);
  expect(await page.textContent('h1')).toBe('The sale');
  expect(await page.textContent('#query')).toBe('?from=mail&x=1');

  const forged = await page.goto(`${server.url}/c/${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
  expect(forged!.status()).toBe(404);
  expect(page.url()).toMatch(new RegExp(`^${server.url}/c/`));

  const [event] = await api.deps.db`select engagement from events where email_id = ${sent.body.id} and type = 'clicked'`;
  expect(event!.engagement).toMatchObject({ url: landingUrl, user_agent: expect.stringContaining('Chrome') });
});
