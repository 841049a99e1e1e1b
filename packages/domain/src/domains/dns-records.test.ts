import { newOwnershipToken, requiredDnsRecords } from './dns-records';

describe('requiredDnsRecords', () => {
  it('lists the ownership, DKIM and DMARC TXT records', () => {
    const records = requiredDnsRecords({ name: 'example.com', ownershipToken: 'mailer-verify=abc', dkimSelector: 'mlrsel', dkimPublicKey: 'MIIBkey' });
    expect(records).toEqual([
      { purpose: 'ownership', type: 'TXT', name: '_mailer-verify.example.com', value: 'mailer-verify=abc' },
      { purpose: 'dkim', type: 'TXT', name: 'mlrsel._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBkey' },
      { purpose: 'dmarc', type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;' },
    ]);
  });

  it('issues ownership tokens that are random and self-describing', () => {
    const a = newOwnershipToken();
    expect(a).toMatch(/^mailer-verify=[0-9A-Za-z]{32}$/);
    expect(newOwnershipToken()).not.toBe(a);
  });
});
