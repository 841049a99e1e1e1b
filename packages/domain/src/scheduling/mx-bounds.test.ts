import { boundMxAttempt, destinationId, destinationKey } from './mx-bounds';

describe('boundMxAttempt', () => {
  const hosts = (n: number, perHost: number) =>
    Array.from({ length: n }, (_, h) => ({ host: `mx${h}.test`, addresses: Array.from({ length: perHost }, (_, a) => `192.0.2.${h * 10 + a}`) }));

  it('tries at most 2 hosts and 5 addresses in all', () => {
    const targets = boundMxAttempt(hosts(3, 4));
    expect(targets.map((t) => t.address)).toEqual(['192.0.2.0', '192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.10']);
    expect(new Set(targets.map((t) => t.host))).toEqual(new Set(['mx0.test', 'mx1.test']));
  });

  it('stops at the second host even when addresses are left', () => {
    expect(boundMxAttempt(hosts(3, 1)).map((t) => t.host)).toEqual(['mx0.test', 'mx1.test']);
  });

  it('skips hosts without usable addresses without counting them', () => {
    const targets = boundMxAttempt([{ host: 'none.test', addresses: [] }, ...hosts(2, 1)]);
    expect(targets.map((t) => t.host)).toEqual(['mx0.test', 'mx1.test']);
  });
});

describe('destinationKey', () => {
  it('is the sorted, lower-case, deduplicated host set, whatever the MX order', () => {
    expect(destinationKey(['MX2.example', 'mx1.example'])).toBe('mx1.example,mx2.example');
    expect(destinationKey(['mx1.example', 'mx2.example', 'mx1.example'])).toBe('mx1.example,mx2.example');
  });

  it('names at most 10 hosts', () => {
    expect(destinationKey(Array.from({ length: 12 }, (_, i) => `mx${String(i).padStart(2, '0')}.test`)).split(',')).toHaveLength(10);
  });
});

describe('destinationId', () => {
  it('is stable per key and names no host', () => {
    expect(destinationId('mx1.example,mx2.example')).toBe(destinationId('mx1.example,mx2.example'));
    expect(destinationId('mx1.example')).not.toBe(destinationId('mx2.example'));
    expect(destinationId('mx1.example')).toMatch(/^d_[0-9a-f]{12}$/);
  });
});
