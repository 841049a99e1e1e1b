import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { resolveHostAddresses, resolveMailRoute } from './resolve-mx';
import { createDnsResolver, type DnsResolver } from './resolver';

let server: TestDnsServer;
let dns: DnsResolver;
beforeAll(async () => {
  server = await startTestDnsServer();
  dns = createDnsResolver({ servers: [server.address], timeoutMs: 200, tries: 1 });
});
afterEach(() => server.reset());
afterAll(() => server.close());

describe('resolveMailRoute', () => {
  it('orders MX hosts by preference, randomly among equals', async () => {
    server.set('example.test', [
      { type: 'MX', exchange: 'backup.example.test', priority: 30 },
      { type: 'MX', exchange: 'mx1.example.test', priority: 10 },
      { type: 'MX', exchange: 'mx2.example.test', priority: 10 },
    ]);
    const firsts = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const route = await resolveMailRoute(dns, 'example.test');
      if (route.kind !== 'hosts') throw new Error(`unexpected ${route.kind}`);
      expect(route.hosts[2]).toBe('backup.example.test');
      expect(route.implicit).toBe(false);
      firsts.add(route.hosts[0]!);
    }
    expect(firsts).toEqual(new Set(['mx1.example.test', 'mx2.example.test']));
  });

  it('falls back to the domain itself without MX records (implicit MX)', async () => {
    server.set('implicit.test', [{ type: 'A', address: '127.0.0.5' }]);
    expect(await resolveMailRoute(dns, 'implicit.test')).toEqual({ kind: 'hosts', hosts: ['implicit.test'], implicit: true });
  });

  it('reports a null MX, NXDOMAIN, a domain without any mail server, and temporary failures', async () => {
    server.set('null.test', [{ type: 'MX', exchange: '.', priority: 0 }]);
    server.set('txt-only.test', [{ type: 'TXT', data: 'hello' }]);
    server.fail('broken.test', 'servfail');
    server.fail('silent.test', 'timeout');
    expect(await resolveMailRoute(dns, 'null.test')).toEqual({ kind: 'null_mx' });
    expect(await resolveMailRoute(dns, 'nowhere.test')).toEqual({ kind: 'not_found' });
    expect(await resolveMailRoute(dns, 'txt-only.test')).toEqual({ kind: 'no_mail_server' });
    expect(await resolveMailRoute(dns, 'broken.test')).toEqual({ kind: 'temporary', reason: 'ESERVFAIL' });
    expect(await resolveMailRoute(dns, 'silent.test')).toEqual({ kind: 'temporary', reason: 'ETIMEOUT' });
  });

  it('treats a failing implicit-MX address lookup as temporary', async () => {
    server.set('half.test', [{ type: 'TXT', data: 'x' }]);
    server.fail('half.test', 'servfail', 'A');
    expect(await resolveMailRoute(dns, 'half.test')).toMatchObject({ kind: 'temporary' });
  });
});

describe('resolveHostAddresses', () => {
  it('returns IPv4 then IPv6 addresses through the configured server', async () => {
    server.set('mx.example.test', [{ type: 'A', address: '127.0.0.7' }, { type: 'AAAA', address: '::1' }]);
    expect(await resolveHostAddresses(dns, 'mx.example.test')).toEqual({ kind: 'found', addresses: ['127.0.0.7', '::1'] });
  });

  it('separates an unknown host from a temporary failure', async () => {
    server.fail('flaky.example.test', 'servfail');
    expect(await resolveHostAddresses(dns, 'gone.example.test')).toEqual({ kind: 'missing', nxdomain: true });
    expect(await resolveHostAddresses(dns, 'flaky.example.test')).toMatchObject({ kind: 'temporary' });
  });
});
