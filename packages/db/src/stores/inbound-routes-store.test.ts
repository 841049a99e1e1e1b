import { parseRoutePattern } from '@mailer/domain';
import { createTestDatabase, insertReadyDomain } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { createInboundRoute, deleteInboundRoute, matchInboundRoute, updateInboundRoute, type InboundRoute } from './inbound-routes-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const now = new Date('2030-01-01T12:00:00.000Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);

/** An account with a ready domain that receives at `receivingSubdomain` (or its name), verified. */
async function receivingAccount(name: string, receivingSubdomain: string | null = null) {
  const accountId = (await createAccount(database.db, name)).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, name);
  await database.db`
    update domains set receiving_enabled = true, receiving_subdomain = ${receivingSubdomain}, receiving_status = 'verified' where id = ${domain.id}`;
  return { accountId, domainId: domain.id };
}

const route = async (accountId: string, pattern: string, at = now, enabled = true): Promise<InboundRoute> => {
  const created = await createInboundRoute(database.db, { accountId, pattern: parseRoutePattern(pattern)!, webhookId: null, enabled, now: at });
  if (created.kind !== 'created') throw new Error(`no route ${pattern}: ${created.kind}`);
  return created.route;
};

describe('createInboundRoute', () => {
  it("takes a pattern of the account's domain or its receiving subdomain, once while it is active", async () => {
    const { accountId, domainId } = await receivingAccount('routes.test', 'in.routes.test');
    expect((await route(accountId, 'Support@routes.test')).domainId).toBe(domainId);
    expect((await route(accountId, '*@in.routes.test')).pattern).toBe('*@in.routes.test');
    const again = () => createInboundRoute(database.db, { accountId, pattern: parseRoutePattern('support@routes.test')!, webhookId: null, enabled: true, now });
    expect(await again()).toEqual({ kind: 'already_exists' });
    const other = (await createAccount(database.db, 'Other')).account.id;
    expect(await createInboundRoute(database.db, { accountId: other, pattern: parseRoutePattern('support@routes.test')!, webhookId: null, enabled: true, now })).toEqual({
      kind: 'no_such_domain',
    });
    const [existing] = await database.db`select id from inbound_routes where account_id = ${accountId} and pattern = 'support@routes.test'`;
    expect(await deleteInboundRoute(database.db, accountId, existing!.id, now)).toBe(true);
    expect((await again()).kind).toBe('created');
  });
});

describe('matchInboundRoute', () => {
  it('prefers the exact local part to `*`, and counts the messages received in the window', async () => {
    const { accountId } = await receivingAccount('match.test');
    const catchAll = await route(accountId, '*@match.test');
    const exact = await route(accountId, 'sales@match.test', minutes(1));
    const insert = (id: string, at: Date) => database.db`
      insert into inbound_emails (id, account_id, route_id, mail_from, recipients, remote_address, message, auth, raw, size, created_at)
      values (${id}, ${accountId}, ${catchAll.id}, '', ${['a@match.test']}::text[], '127.0.0.1', '{}'::jsonb, '{}'::jsonb, ${Buffer.from('x')}, 1, ${at})`;
    await insert('inb_before', minutes(-10));
    await insert('inb_at_start', minutes(-5));
    await insert('inb_in', minutes(-1));

    const match = (localPart: string) => matchInboundRoute(database.db, { localPart, host: 'match.test' }, minutes(-5));
    expect(await match('sales')).toEqual({ routeId: exact.id, accountId, webhookId: null, receivedInWindow: 1 });
    expect((await match('anyone'))?.routeId).toBe(catchAll.id);
    expect(await matchInboundRoute(database.db, { localPart: 'sales', host: 'elsewhere.test' }, minutes(-5))).toBeUndefined();
  });

  it('matches no disabled or deleted route, and none of a domain not verified for receiving or receiving elsewhere', async () => {
    const { accountId, domainId } = await receivingAccount('quiet.test');
    const disabled = await route(accountId, 'off@quiet.test');
    await updateInboundRoute(database.db, disabled, { enabled: false }, now);
    const deleted = await route(accountId, 'gone@quiet.test');
    await deleteInboundRoute(database.db, accountId, deleted.id, now);
    await route(accountId, 'on@quiet.test');
    const match = (localPart: string) => matchInboundRoute(database.db, { localPart, host: 'quiet.test' }, now);
    expect(await match('off')).toBeUndefined();
    expect(await match('gone')).toBeUndefined();
    expect((await match('on'))?.accountId).toBe(accountId);

    await database.db`update domains set receiving_status = 'missing' where id = ${domainId}`;
    expect(await match('on')).toBeUndefined();
    // Verified again, but now receiving at a subdomain: the route at the domain's own name is not reached.
    await database.db`update domains set receiving_status = 'verified', receiving_subdomain = 'in.quiet.test' where id = ${domainId}`;
    expect(await match('on')).toBeUndefined();
  });
});
