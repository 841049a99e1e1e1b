import { normalizeAccountName, parsePlanLimit } from './account-settings';

describe('account settings', () => {
  it('takes a trimmed name of 1 to 200 characters without control characters', () => {
    expect(normalizeAccountName('  Acme ')).toBe('Acme');
    expect(normalizeAccountName('é'.repeat(200))).toBe('é'.repeat(200));
    for (const bad of ['', '   ', 'a'.repeat(201), 'A\u0000B', 'line\nbreak']) expect(normalizeAccountName(bad)).toBeUndefined();
  });

  it('takes plan limits from 0 to the largest PostgreSQL integer', () => {
    expect(parsePlanLimit('0')).toBe(0);
    expect(parsePlanLimit(' 2147483647 ')).toBe(2_147_483_647);
    for (const bad of ['2147483648', '-1', '1.5', '1e3', '', 'ten']) expect(parsePlanLimit(bad)).toBeUndefined();
  });
});
