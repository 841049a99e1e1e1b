import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { createRecordLookup } from './record-lookup';
import { createDnsResolver } from './resolver';
import { evaluateSpf, observeReverseDns } from './sender-checks';

let server: TestDnsServer;
beforeAll(async () => {
  server = await startTestDnsServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const options = () => ({ servers: [server.address], timeoutMs: 300 });

describe('observeReverseDns', () => {
  it("looks up an address's PTR names and each name's addresses of the same family", async () => {
    const dns = createDnsResolver(options());
    server.set('10.113.0.203.in-addr.arpa', [{ type: 'PTR', target: 'mta1.mailer.test' }]);
    server.set('mta1.mailer.test', [{ type: 'A', address: '203.0.113.10' }]);
    server.set('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', [{ type: 'PTR', target: 'mta6.mailer.test' }]);
    server.set('mta6.mailer.test', [{ type: 'AAAA', address: '2001:db8::1' }]);
    expect(await observeReverseDns(dns, '203.0.113.10')).toEqual({
      address: '203.0.113.10',
      ptr: { kind: 'found', values: ['mta1.mailer.test'] },
      forward: [{ name: 'mta1.mailer.test', answer: { kind: 'found', values: ['203.0.113.10'] } }],
    });
    expect((await observeReverseDns(dns, '2001:db8::1')).forward).toEqual([{ name: 'mta6.mailer.test', answer: { kind: 'found', values: ['2001:db8::1'] } }]);
  });

  it('keeps a SERVFAIL of the PTR temporary, and no PTR missing', async () => {
    const dns = createDnsResolver(options());
    server.fail('10.113.0.203.in-addr.arpa', 'servfail');
    expect((await observeReverseDns(dns, '203.0.113.10')).ptr).toEqual({ kind: 'temporary', reason: 'ESERVFAIL' });
    expect(await observeReverseDns(dns, '203.0.113.11')).toEqual({ address: '203.0.113.11', ptr: { kind: 'missing', nxdomain: true }, forward: [] });
  });
});

describe('evaluateSpf', () => {
  it("evaluates the envelope domain's SPF for an address as a receiver does", async () => {
    const lookup = createRecordLookup(options());
    server.set('bounces.example.test', [{ type: 'TXT', data: 'v=spf1 ip4:203.0.113.10 -all' }]);
    const check = (address: string) => evaluateSpf(lookup, { address, envelopeDomain: 'bounces.example.test', heloName: 'mta1.mailer.test' });
    expect(await check('203.0.113.10')).toEqual({ address: '203.0.113.10', result: 'pass' });
    expect(await check('203.0.113.11')).toEqual({ address: '203.0.113.11', result: 'fail' });
    server.fail('bounces.example.test', 'servfail');
    expect(await check('203.0.113.10')).toEqual({ address: '203.0.113.10', result: 'temperror' });
  });
});
