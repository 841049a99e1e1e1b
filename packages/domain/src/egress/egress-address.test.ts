import { checkHeloName, checkPoolName, checkSourceAddress, heloIdentityProblem, reverseDnsName } from './egress-address';

describe('egress names', () => {
  it('takes pool names, HELO names and single addresses, normalized', () => {
    expect(checkPoolName(' Dedicated-1 ')).toEqual({ ok: true, value: 'dedicated-1' });
    expect(checkPoolName('no spaces').ok).toBe(false);
    expect(checkHeloName('MTA1.Example.com.')).toEqual({ ok: true, value: 'mta1.example.com' });
    expect(checkHeloName('localhost').ok).toBe(false);
    expect(checkSourceAddress('127.0.0.2')).toEqual({ ok: true, value: '127.0.0.2' });
    expect(checkSourceAddress('2001:DB8::1')).toEqual({ ok: true, value: '2001:db8::1' });
    expect(checkSourceAddress('10.0.0.0/24').ok).toBe(false);
  });
});

describe('heloIdentityProblem', () => {
  it('accepts a HELO name that is the forward-confirmed reverse DNS of the address', () => {
    expect(heloIdentityProblem('192.0.2.7', 'mta1.example.com', { ptrNames: ['MTA1.example.com.'], heloAddresses: ['192.0.2.7'] })).toBeNull();
  });

  it('says what is wrong otherwise', () => {
    expect(heloIdentityProblem('192.0.2.7', 'mta1.example.com', { ptrNames: [], heloAddresses: ['192.0.2.7'] })).toMatch(/no PTR record/);
    expect(heloIdentityProblem('192.0.2.7', 'mta1.example.com', { ptrNames: ['host7.isp.example'], heloAddresses: ['192.0.2.7'] })).toMatch(/does not name mta1/);
    expect(heloIdentityProblem('192.0.2.7', 'mta1.example.com', { ptrNames: ['mta1.example.com'], heloAddresses: ['192.0.2.8'] })).toMatch(/does not resolve back/);
  });
});

describe('reverseDnsName', () => {
  it('names the PTR record of an IPv4 or IPv6 address', () => {
    expect(reverseDnsName('203.0.113.10')).toBe('10.113.0.203.in-addr.arpa');
    expect(reverseDnsName('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
    expect(reverseDnsName('::ffff:192.0.2.1')).toBe('1.0.2.0.0.0.0.c.f.f.f.f.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa');
    expect(reverseDnsName('2001:DB8:0:0:1::')).toBe('0.0.0.0.0.0.0.0.0.0.0.0.1.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  });
});
