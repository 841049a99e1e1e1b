import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { createDnsResolver, MAX_CNAME_HOPS, type DnsResolver } from './resolver';

let server: TestDnsServer;
let dns: DnsResolver;
beforeAll(async () => {
  server = await startTestDnsServer();
  dns = createDnsResolver({ servers: [server.address], timeoutMs: 200, tries: 1 });
});
afterEach(() => server.reset());
afterAll(() => server.close());

describe('DnsResolver.txt', () => {
  it('joins the strings of each record and returns every record', async () => {
    const long = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`;
    server.set('multi.test', [{ type: 'TXT', data: long }, { type: 'TXT', data: 'second' }]);
    expect(await dns.txt('multi.test')).toEqual({ kind: 'found', values: [long, 'second'] });
  });

  it('tells NXDOMAIN from a name without TXT records', async () => {
    server.set('a-only.test', [{ type: 'A', address: '127.0.0.9' }]);
    expect(await dns.txt('nowhere.test')).toEqual({ kind: 'missing', nxdomain: true });
    expect(await dns.txt('a-only.test')).toEqual({ kind: 'missing', nxdomain: false });
  });

  it('reports SERVFAIL, REFUSED and silence as temporary', async () => {
    server.fail('broken.test', 'servfail');
    server.fail('refused.test', 'refused');
    server.fail('silent.test', 'timeout');
    expect(await dns.txt('broken.test')).toEqual({ kind: 'temporary', reason: 'ESERVFAIL' });
    expect(await dns.txt('refused.test')).toEqual({ kind: 'temporary', reason: 'EREFUSED' });
    expect(await dns.txt('silent.test')).toEqual({ kind: 'temporary', reason: 'ETIMEOUT' });
  });

  it('follows CNAMEs, also to targets the server does not resolve itself', async () => {
    server.set('alias.test', [{ type: 'CNAME', target: 'hop.test' }]);
    server.set('hop.test', [{ type: 'CNAME', target: 'target.test' }]);
    server.set('target.test', [{ type: 'TXT', data: 'at the end' }]);
    expect(await dns.txt('alias.test')).toEqual({ kind: 'found', values: ['at the end'] });
    server.set('dangling.test', [{ type: 'CNAME', target: 'gone.test' }]);
    expect(await dns.txt('dangling.test')).toEqual({ kind: 'missing', nxdomain: true });
  });

  it('gives up on a CNAME loop after a bounded number of hops', async () => {
    server.set('loop-a.test', [{ type: 'CNAME', target: 'loop-b.test' }]);
    server.set('loop-b.test', [{ type: 'CNAME', target: 'loop-a.test' }]);
    const before = server.queryCount();
    expect(await dns.txt('loop-a.test')).toEqual({ kind: 'missing', nxdomain: false });
    expect(server.queryCount() - before).toBe(2 * (MAX_CNAME_HOPS + 1));
  });

  it('cancels a query when its signal aborts', async () => {
    const slow = createDnsResolver({ servers: [server.address], timeoutMs: 5_000, tries: 2 });
    server.fail('silent.test', 'timeout');
    // The signal's answer: the query's own timeout would read `timeout`.
    expect(await slow.txt('silent.test', AbortSignal.timeout(200))).toEqual({ kind: 'temporary', reason: 'deadline_exceeded' });
  });

  it('refuses a server list node cannot use, at creation', () => {
    expect(() => createDnsResolver({ servers: ['dns.example.com:53'], timeoutMs: 100 })).toThrow();
  });
});
