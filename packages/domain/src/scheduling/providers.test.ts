import { hostHasSuffix, mergeProviders, providerDestinationKey, providerFor, providerLimitRule, type Provider } from './providers';

const shipped: Provider[] = [
  { name: 'gmail', suffixes: ['google.com', 'googlemail.com'], connections: 20 },
  { name: 'microsoft', suffixes: ['mail.protection.outlook.com', 'olc.protection.outlook.com'], messagesPerMinute: 600 },
];

describe('hostHasSuffix', () => {
  it('matches the suffix itself and names under it, label-wise and case-insensitively', () => {
    expect(hostHasSuffix('aspmx.l.google.com', 'google.com')).toBe(true);
    expect(hostHasSuffix('ASPMX.L.Google.COM.', 'google.com')).toBe(true);
    expect(hostHasSuffix('google.com', 'google.com')).toBe(true);
    expect(hostHasSuffix('evilgoogle.com', 'google.com')).toBe(false);
    expect(hostHasSuffix('google.com.evil.test', 'google.com')).toBe(false);
  });
});

describe('providerFor', () => {
  it('names the provider of distinct MX sets that end in its suffixes', () => {
    expect(providerFor(shipped, ['aspmx.l.google.com', 'alt1.aspmx.l.google.com'])?.name).toBe('gmail');
    expect(providerFor(shipped, ['example-com.mail.protection.outlook.com'])?.name).toBe('microsoft');
    expect(providerFor(shipped, ['mx1.example.net', 'alt2.aspmx.l.google.com'])?.name).toBe('gmail');
  });

  it('leaves other MX hosts to no provider', () => {
    expect(providerFor(shipped, ['mx.example.net'])).toBeUndefined();
    expect(providerFor(shipped, [])).toBeUndefined();
  });

  it('takes the first provider in the table order', () => {
    const table = [{ name: 'workspace-eu', suffixes: ['eu.google.com'] }, ...shipped];
    expect(providerFor(table, ['mx.eu.google.com'])?.name).toBe('workspace-eu');
    expect(providerFor(table, ['mx.us.google.com'])?.name).toBe('gmail');
  });
});

describe('mergeProviders', () => {
  it("puts the operator's entries first and replaces shipped entries of the same name whole", () => {
    const merged = mergeProviders(shipped, [
      { name: 'microsoft', suffixes: ['outlook.com'], connections: 2 },
      { name: 'corp', suffixes: ['mx.corp.example'] },
    ]);
    expect(merged.map((p) => p.name)).toEqual(['microsoft', 'corp', 'gmail']);
    expect(merged[0]).toEqual({ name: 'microsoft', suffixes: ['outlook.com'], connections: 2 });
  });
});

describe('providerLimitRule', () => {
  it("keys the provider's limits by its name, never by a host pattern", () => {
    expect(providerLimitRule(shipped[0]!)).toEqual({ pattern: 'provider:gmail', connections: 20 });
    expect(providerDestinationKey(shipped[1]!)).toBe('provider:microsoft');
  });
});
