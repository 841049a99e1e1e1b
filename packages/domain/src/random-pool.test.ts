import { pooledRandomBytes } from './random-pool';

describe('pooledRandomBytes', () => {
  it('hands out each pooled byte once, across refills of the pool', () => {
    const seen = new Set<string>();
    // 2,000 x 12 bytes spans several 4 KiB refills.
    for (let i = 0; i < 2_000; i++) {
      const bytes = pooledRandomBytes(12);
      expect(bytes).toHaveLength(12);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(2_000);
  });

  it('returns copies that later draws do not overwrite', () => {
    const first = pooledRandomBytes(16);
    const kept = Buffer.from(first);
    for (let i = 0; i < 600; i++) pooledRandomBytes(16);
    expect(first.equals(kept)).toBe(true);
  });

  it('serves sizes larger than the pool straight from the CSPRNG', () => {
    expect(pooledRandomBytes(10_000)).toHaveLength(10_000);
  });
});
