import fc from 'fast-check';
import { normalizeDomainName, organizationalDomain } from './domain-name';

const accepted = (input: string) => {
  const result = normalizeDomainName(input);
  if (!result.ok) throw new Error(`refused ${input}: ${result.message}`);
  return result.value;
};
const refusal = (input: string) => {
  const result = normalizeDomainName(input);
  if (result.ok) throw new Error(`accepted ${input} as ${result.value}`);
  return result.message;
};

describe('normalizeDomainName', () => {
  it('lower-cases, trims and removes one trailing dot', () => {
    expect(accepted('Example.COM')).toBe('example.com');
    expect(accepted('  mail.example.com.  ')).toBe('mail.example.com');
    expect(accepted('a-b.example.co.uk')).toBe('a-b.example.co.uk');
  });

  it('converts IDN names to A-labels', () => {
    expect(accepted('bücher.example')).toBe('xn--bcher-kva.example');
    expect(accepted('BÜCHER.example')).toBe('xn--bcher-kva.example');
    expect(accepted('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(accepted('example。com')).toBe('example.com');
  });

  it('refuses IP literals, including shorthand IPv4 forms', () => {
    for (const ip of ['192.0.2.1', '[2001:db8::1]', '2001:db8::1', '0x7f.1', '127.1']) {
      expect(refusal(ip)).toBe('must be a domain name, not an IP address');
    }
  });

  it('refuses public suffixes of the ICANN section', () => {
    expect(refusal('co.uk')).toMatch(/public suffix/);
    expect(refusal('com.')).toMatch(/two labels/);
    expect(refusal('foo.ck')).toMatch(/public suffix/);
    expect(accepted('example.co.uk')).toBe('example.co.uk');
    // Private-section suffixes are ordinary names here.
    expect(accepted('github.io')).toBe('github.io');
  });

  it('refuses single labels, bad characters, bad hyphens and empty labels', () => {
    expect(refusal('localhost')).toMatch(/two labels/);
    expect(refusal('exa_mple.com')).toMatch(/letters, digits and hyphens/);
    expect(refusal('exa mple.com')).toMatch(/letters, digits and hyphens/);
    expect(refusal('exa*mple.com')).toMatch(/letters, digits and hyphens/);
    expect(refusal('-example.com')).toMatch(/hyphen/);
    expect(refusal('example-.com')).toMatch(/hyphen/);
    expect(refusal('a..example.com')).toMatch(/empty labels/);
    expect(refusal('')).toMatch(/empty/);
    expect(refusal('   ')).toMatch(/empty/);
    expect(refusal('example.123')).toBeDefined();
  });

  it('refuses URL syntax that the host parser would otherwise cut off or decode', () => {
    for (const name of ['example.com/evil', 'ex%61mple.com', 'example.com?x', 'example.com#x', 'user@example.com', 'example.com:25']) {
      expect(normalizeDomainName(name).ok).toBe(false);
    }
  });

  it('refuses invalid punycode', () => {
    expect(refusal('xn--zz.example.com')).toMatch(/punycode/);
  });

  it('enforces 63 characters per label and 253 in all', () => {
    expect(accepted(`${'a'.repeat(63)}.com`)).toHaveLength(67);
    expect(refusal(`${'a'.repeat(64)}.com`)).toMatch(/longer than 63/);
    const long = `${Array.from({ length: 4 }, () => 'a'.repeat(62)).join('.')}.com`;
    expect(long.length).toBeGreaterThan(253);
    expect(refusal(long)).toMatch(/253/);
    expect(refusal('a'.repeat(5000))).toMatch(/253/);
  });
});

describe('organizationalDomain', () => {
  it('is the public suffix plus one label (RFC 7489 section 3.2)', () => {
    expect(organizationalDomain('mail.example.com')).toBe('example.com');
    expect(organizationalDomain('a.b.example.co.uk')).toBe('example.co.uk');
    expect(organizationalDomain('example.com')).toBe('example.com');
    expect(organizationalDomain('mail.example.test')).toBe('example.test');
  });
});

describe('normalizeDomainName, for any host name', () => {
  const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
  const hostName = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'example', 'co.uk', 'test'))
    .map(([labels, tld]) => `${labels.join('.')}.${tld}`);

  it('accepts it in any case, with or without a trailing dot, and is idempotent', () => {
    fc.assert(
      fc.property(hostName, fc.boolean(), (name, trailingDot) => {
        const input = `${name.toUpperCase()}${trailingDot ? '.' : ''}`;
        const once = normalizeDomainName(input);
        expect(once).toEqual({ ok: true, value: name });
        expect(normalizeDomainName(name)).toEqual(once);
      }),
    );
  });
});
