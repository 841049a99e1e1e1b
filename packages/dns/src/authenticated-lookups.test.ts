import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { createAuthenticatedLookups } from './authenticated-lookups';

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startTestDnsServer();
});
afterEach(() => dns.reset());
afterAll(() => dns.close());

const lookups = () => createAuthenticatedLookups({ servers: [dns.address], timeoutMs: 5_000 });
const hash = Buffer.alloc(32, 7);

describe('createAuthenticatedLookups', () => {
  it('reads TLSA records and says whether the resolver authenticated them (AD bit)', async () => {
    dns.set('_25._tcp.mx.signed.test', [{ type: 'TLSA', usage: 3, selector: 1, matchingType: 1, data: hash }]);
    expect(await lookups().tlsa('mx.signed.test')).toEqual({ kind: 'found', secure: false, values: [{ usage: 3, selector: 1, matchingType: 1, data: hash }] });
    dns.secure('_25._tcp.mx.signed.test', true);
    expect(await lookups().tlsa('mx.signed.test')).toMatchObject({ kind: 'found', secure: true });
  });

  it('reads MX records with their AD bit', async () => {
    dns.set('signed.test', [{ type: 'MX', exchange: 'mx.signed.test', priority: 10 }]);
    dns.secure('signed.test', true);
    expect(await lookups().mx('signed.test')).toEqual({ kind: 'found', secure: true, values: ['mx.signed.test'] });
  });

  it('tells no records from a failed lookup', async () => {
    expect(await lookups().tlsa('mx.nowhere.test')).toEqual({ kind: 'missing', secure: false });
    dns.set('mx.plain.test', [{ type: 'A', address: '127.0.0.2' }]);
    dns.set('_25._tcp.mx.plain.test', [{ type: 'A', address: '127.0.0.2' }]);
    expect(await lookups().tlsa('mx.plain.test')).toEqual({ kind: 'missing', secure: false });
    dns.fail('_25._tcp.mx.broken.test', 'servfail');
    expect(await lookups().tlsa('mx.broken.test')).toEqual({ kind: 'temporary', reason: 'SERVFAIL' });
  });
});
