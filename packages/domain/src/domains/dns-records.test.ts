import { newOwnershipToken, requiredDnsRecords } from './dns-records';

describe('requiredDnsRecords', () => {
  it('lists the ownership, DKIM and DMARC TXT records and the return path MX and SPF records', () => {
    const records = requiredDnsRecords(
      { name: 'example.com', ownershipToken: 'mailer-verify=abc', dkimSelector: 'mlrsel', dkimPublicKey: 'MIIBkey' },
      { label: 'bounces', inboundHost: 'inbound.mailer.example', trackingHost: 'mailer.example', outboundIps: ['192.0.2.10', '2001:db8::/64'], spfInclude: 'spf.mailer.example' },
    );
    expect(records).toEqual([
      { purpose: 'ownership', type: 'TXT', name: '_mailer-verify.example.com', value: 'mailer-verify=abc' },
      { purpose: 'dkim', type: 'TXT', name: 'mlrsel._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBkey', state: 'active' },
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

  it('adds an MX record at the receiving host, the domain or its receiving subdomain, while receiving is on', () => {
    const returnPath = { label: 'bounces', inboundHost: 'inbound.mailer.example', trackingHost: 'mailer.example', outboundIps: [] };
    const identity = { name: 'example.com', ownershipToken: 'mailer-verify=abc', dkimSelector: 'mlrsel', dkimPublicKey: 'MIIBkey' };
    const receiving = (domain: Partial<Parameters<typeof requiredDnsRecords>[0]>) =>
      requiredDnsRecords({ ...identity, ...domain }, returnPath).filter((r) => r.purpose === 'receiving_mx');
    expect(receiving({ receivingEnabled: false, receivingSubdomain: 'in.example.com' })).toEqual([]);
    expect(receiving({ receivingEnabled: true, receivingSubdomain: null })).toEqual([{ purpose: 'receiving_mx', type: 'MX', name: 'example.com', value: '10 inbound.mailer.example' }]);
    expect(receiving({ receivingEnabled: true, receivingSubdomain: 'in.example.com' })).toEqual([{ purpose: 'receiving_mx', type: 'MX', name: 'in.example.com', value: '10 inbound.mailer.example' }]);
  });

  it('lists the other DKIM keys after the active RSA key, with their states and when retiring ones are safe to remove', () => {
    const supersededAt = new Date('2026-05-01T00:00:00Z');
    const records = requiredDnsRecords(
      { name: 'example.com', ownershipToken: 'mailer-verify=abc', dkimSelector: 'mlrsel', dkimPublicKey: 'MIIBkey' },
      { label: 'bounces', inboundHost: 'inbound.mailer.example', trackingHost: 'mailer.example', outboundIps: [] },
      [
        { algorithm: 'ed25519', selector: 'mlred', publicKey: 'edkey=', state: 'active', supersededAt: null },
        { algorithm: 'rsa', selector: 'mlrnew', publicKey: 'MIIBnew', state: 'pending', supersededAt: null },
        { algorithm: 'ed25519', selector: 'mlrold', publicKey: 'oldkey=', state: 'retiring', supersededAt },
      ],
    );
    expect(records.filter((r) => r.purpose.startsWith('dkim'))).toEqual([
      { purpose: 'dkim', type: 'TXT', name: 'mlrsel._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBkey', state: 'active' },
      { purpose: 'dkim_ed25519', type: 'TXT', name: 'mlred._domainkey.example.com', value: 'v=DKIM1; k=ed25519; p=edkey=', state: 'active' },
      { purpose: 'dkim', type: 'TXT', name: 'mlrnew._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBnew', state: 'pending' },
      {
        purpose: 'dkim_ed25519',
        type: 'TXT',
        name: 'mlrold._domainkey.example.com',
        value: 'v=DKIM1; k=ed25519; p=oldkey=',
        state: 'retiring',
        retiring_until: '2026-05-08T00:00:00.000Z',
      },
    ]);
  });

  it('issues ownership tokens that are random and self-describing', () => {
    const a = newOwnershipToken();
    expect(a).toMatch(/^mailer-verify=[0-9A-Za-z]{32}$/);
    expect(newOwnershipToken()).not.toBe(a);
  });
});
