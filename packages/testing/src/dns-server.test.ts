import { Resolver } from 'node:dns/promises';
import { startTestDnsServer, type TestDnsServer } from './dns-server';

let dns: TestDnsServer;
let resolver: Resolver;
beforeAll(async () => {
  dns = await startTestDnsServer();
  resolver = new Resolver({ timeout: 300, tries: 1 });
  resolver.setServers([dns.address]);
});
afterAll(() => dns.close());

describe('test DNS server', () => {
  it('serves A, AAAA, MX (including a null MX), long TXT and CNAME chains', async () => {
    dns.set('mx1.example.test', [{ type: 'A', address: '127.0.0.2' }, { type: 'AAAA', address: '::1' }]);
    dns.set('example.test', [{ type: 'MX', exchange: 'mx1.example.test', priority: 10 }]);
    dns.set('null.test', [{ type: 'MX', exchange: '.', priority: 0 }]);
    dns.set('txt.test', [{ type: 'TXT', data: 'v=DKIM1; k=rsa; p=' + 'A'.repeat(400) }]);
    dns.set('alias.test', [{ type: 'CNAME', target: 'txt.test' }]);
    expect(await resolver.resolve4('mx1.example.test')).toEqual(['127.0.0.2']);
    expect(await resolver.resolve6('mx1.example.test')).toEqual(['::1']);
    expect(await resolver.resolveMx('example.test')).toEqual([{ exchange: 'mx1.example.test', priority: 10 }]);
    expect(await resolver.resolveMx('null.test')).toEqual([{ exchange: '', priority: 0 }]);
    expect((await resolver.resolveTxt('txt.test'))[0]!.join('')).toBe('v=DKIM1; k=rsa; p=' + 'A'.repeat(400));
    expect((await resolver.resolveTxt('alias.test'))[0]!.join('')).toContain('v=DKIM1');
  });

  it('answers NXDOMAIN, NODATA, SERVFAIL, REFUSED and silence', async () => {
    dns.set('nodata.test', [{ type: 'A', address: '127.0.0.3' }]);
    dns.fail('broken.test', 'servfail');
    dns.fail('refused.test', 'refused');
    dns.fail('silent.test', 'timeout');
    await expect(resolver.resolveTxt('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('nodata.test')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolveTxt('broken.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await expect(resolver.resolveTxt('refused.test')).rejects.toMatchObject({ code: 'EREFUSED' });
    await expect(resolver.resolveTxt('silent.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });
});
