import { insertQueuedEmail } from '@mailer/testing';
import { startTestApi, type TestApi } from '../testing';
import { signInToConsole } from '../testing/console-session';
import { sendingAccount, type SendingAccount } from '../testing/sending-account';

const OPERATOR_TOKEN = 'operator-token-for-search-tests';
let api: TestApi;
let acme: SendingAccount;
let session: string;
beforeAll(async () => {
  api = await startTestApi({ OPERATOR_TOKEN });
  acme = await sendingAccount(api);
  ({ session } = await signInToConsole(api, OPERATOR_TOKEN));
});
afterAll(() => api.close());

const search = (query: string) => api.http.get(`/console/emails?${query}`).set('Cookie', session);
const foundIds = (text: string) => [...text.matchAll(/href="\/console\/emails\/(em_[A-Za-z0-9]+)"/g)].map((m) => m[1]!);

describe("the console's email search", () => {
  it('pages through the matches newest first, with a cursor valid only for the same search', async () => {
    const base = Date.parse('2026-03-01T00:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) {
      const email = await insertQueuedEmail(api.deps.db, {
        accountId: acme.accountId,
        senderId: acme.sender.id,
        domainId: acme.domain.id,
        from: acme.sender.email,
        to: ['paged@example.test'],
        tags: { batch: 'paging' },
        createdAt: new Date(base + i * 1000),
      });
      ids.push(email.id);
    }
    const newestFirst = [...ids].reverse();
    const first = await search(`account=${acme.accountId}&tag=batch:paging&recipient=PAGED@example.test`);
    expect(first.status).toBe(200);
    expect(foundIds(first.text)).toEqual(newestFirst.slice(0, 50));
    const older = /href="(\/console\/emails\?[^"]+)">Older messages/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await api.http.get(older).set('Cookie', session);
    expect(foundIds(second.text)).toEqual(newestFirst.slice(50));
    expect(second.text).not.toContain('Older messages');

    const cursor = new URL(older, 'http://console.test').searchParams.get('cursor')!;
    const otherSearch = await search(`account=${acme.accountId}&cursor=${encodeURIComponent(cursor)}`);
    expect(otherSearch.status).toBe(400);
    expect(otherSearch.text).toContain('invalid_cursor');
  });

  it('narrows by status and creation bounds, goes straight to a message by id, and names each bad field', async () => {
    const bounded = await search(`account=${acme.accountId}&created_after=2026-03-01T00:00:49Z&created_before=2026-03-01T00:00:51Z`);
    expect(foundIds(bounded.text)).toHaveLength(1);
    expect(foundIds((await search(`account=${acme.accountId}&status=accepted`)).text)).toEqual([]);
    const [one] = foundIds(bounded.text);
    const byId = await search(`id=${one}`);
    expect(byId.status).toBe(303);
    expect(byId.headers.location).toBe(`/console/emails/${one}`);
    expect((await api.http.get(byId.headers.location!).set('Cookie', session)).text).toContain('paged@example.test');

    const bad = await search('recipient=not-an-address&status=lost&tag=nocolon&created_after=yesterday');
    expect(bad.status).toBe(422);
    for (const text of ['recipient must be an email address', 'status must be one of', 'tag must be name:value', 'created_after']) expect(bad.text).toContain(text);
    expect((await api.http.get('/console/emails/em_doesnotexist').set('Cookie', session)).status).toBe(404);
    expect((await search('id=nonsense')).text).toContain('email_not_found');
  });
  it('marks a test message in the list and in its detail', async () => {
    const base = { accountId: acme.accountId, senderId: acme.sender.id, domainId: acme.domain.id, from: acme.sender.email, to: ['marked@example.test'] };
    const testEmail = await insertQueuedEmail(api.deps.db, { ...base, test: true });
    const liveEmail = await insertQueuedEmail(api.deps.db, base);
    const found = await search('recipient=marked@example.test');
    const rowOf = (id: string) => new RegExp(`<tr>(?:(?!</tr>).)*${id}(?:(?!</tr>).)*</tr>`, 's').exec(found.text)![0];
    expect(rowOf(testEmail.id)).toContain('class="test-mark">test<');
    expect(rowOf(liveEmail.id)).not.toContain('test-mark');
    const detailOf = async (id: string) => (await api.http.get(`/console/emails/${id}`).set('Cookie', session)).text;
    expect(await detailOf(testEmail.id)).toMatch(/<dt>Mode<\/dt><dd> <strong class="test-mark">test<\/strong> sent with the test key/);
    expect(await detailOf(liveEmail.id)).toContain('<dt>Mode</dt><dd>live</dd>');
  });
});
