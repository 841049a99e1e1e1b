import { newOwnershipToken, requiredDnsRecords } from './dns-records';

describe('requiredDnsRecords', () => {
  it('lists the ownership, DKIM and DMARC TXT records and the return path MX and SPF records', () => {
    const records = requiredDnsRecords(
      { name: 'example.com', ownershipToken: 'mailer-verify=abc', dkimSelector: 'mlrsel', dkimPublicKey: 'MIIBkey' },
      { label: 'bounces', inboundHost: 'inbound.mailer.example', outboundIps: ['192.0.2.10', '2001:db8::/64'], spfInclude: 'spf.mailer.example' },
    );
    expect(records).toEqual([
      { purpose: 'ownership', type: 'TXT', name: '_mailer-verify.example.com', value: 'mailer-verify=abc' },
      { purpose: 'dkim', type: 'TXT', name: 'mlrsel._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBkey' },
      { purpose: 'dmarc', type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;' },
      { purpose: 'return_path_mx', type: 'MX', name: 'bounces.example.com', value: '10 inbound.mailer.example' },
      {
        purpose: 'return_path_spf',
        type: 'TXT',
        name: 'bounces.example.com',
        value: 'v=spf1 ip4:192.0.2.10 ip6:2001:db8::/64 include:spf.mailer.example -all',
      },
    ]);
  });

  it('issues ownership tokens that are random and self-describing', () => {
    const a = newOwnershipToken();
    expect(a).toMatch(/^mailer-verify=[0-9A-Za-z]{32}$/);
    expect(newOwnershipToken()).not.toBe(a);
  });
});
