import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { observeDomainDns } from './observe-domain-dns';
import { createDnsResolver } from './resolver';

let server: TestDnsServer;
beforeAll(async () => {
  server = await startTestDnsServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

describe('observeDomainDns', () => {
  it('looks up the ownership, DKIM and DMARC names and the return-path host', async () => {
    const dns = createDnsResolver({ servers: [server.address], timeoutMs: 300 });
    server.set('_mailer-verify.example.test', [{ type: 'TXT', data: 'mailer-verify=x' }]);
    server.set('sel._domainkey.example.test', [{ type: 'TXT', data: 'v=DKIM1; p=K' }]);
    server.set('bounces.example.test', [
      { type: 'MX', exchange: 'inbound.mailer.test', priority: 10 },
      { type: 'TXT', data: 'v=spf1 ip4:192.0.2.1 -all' },
    ]);
    const observation = await observeDomainDns(dns, { name: 'example.test', dkimSelector: 'sel' }, 'bounces');
    expect(observation).toEqual({
      ownership: { kind: 'found', values: ['mailer-verify=x'] },
      dkim: { kind: 'found', values: ['v=DKIM1; p=K'] },
      dmarc: { kind: 'missing', nxdomain: true },
      returnPathMx: { kind: 'found', values: ['inbound.mailer.test'] },
      returnPathTxt: { kind: 'found', values: ['v=spf1 ip4:192.0.2.1 -all'] },
      pendingDkim: [],
    });
  });

  it("looks up the Ed25519 selector and a pending rotation's selectors", async () => {
    const dns = createDnsResolver({ servers: [server.address], timeoutMs: 300 });
    server.set('ed._domainkey.example.test', [{ type: 'TXT', data: 'v=DKIM1; k=ed25519; p=E' }]);
    server.set('new1._domainkey.example.test', [{ type: 'TXT', data: 'v=DKIM1; p=N' }]);
    const observation = await observeDomainDns(dns, { name: 'example.test', dkimSelector: 'sel', dkimEd25519Selector: 'ed' }, 'bounces', ['new1', 'new2']);
    expect(observation.dkimEd25519).toEqual({ kind: 'found', values: ['v=DKIM1; k=ed25519; p=E'] });
    expect(observation.pendingDkim).toEqual([
      { selector: 'new1', answer: { kind: 'found', values: ['v=DKIM1; p=N'] } },
      { selector: 'new2', answer: { kind: 'missing', nxdomain: true } },
    ]);
  });

  it('also asks the organizational domain for DMARC when the domain is a subdomain', async () => {
    const dns = createDnsResolver({ servers: [server.address], timeoutMs: 300 });
    server.set('_dmarc.example.test', [{ type: 'TXT', data: 'v=DMARC1; p=none' }]);
    const observation = await observeDomainDns(dns, { name: 'mail.example.test', dkimSelector: 'sel' }, 'bounces');
    expect(observation.dmarc).toEqual({ kind: 'missing', nxdomain: true });
    expect(observation.organizationalDmarc).toEqual({ kind: 'found', values: ['v=DMARC1; p=none'] });
  });

  it('ends by its deadline however slow the server is', async () => {
    const dns = createDnsResolver({ servers: [server.address], timeoutMs: 10_000, tries: 2 });
    server.fail('_mailer-verify.slow.test', 'timeout');
    server.fail('sel._domainkey.slow.test', 'timeout');
    const observation = await observeDomainDns(dns, { name: 'slow.test', dkimSelector: 'sel' }, 'bounces', [], 300);
    // The deadline's answer (a query's own timeout would read `timeout`), well before the silent server's 10 s could pass.
    expect(observation.ownership).toEqual({ kind: 'temporary', reason: 'deadline_exceeded' });
    expect(observation.dkim).toEqual({ kind: 'temporary', reason: 'deadline_exceeded' });
    expect(observation.dmarc).toEqual({ kind: 'missing', nxdomain: true });
  });
});
