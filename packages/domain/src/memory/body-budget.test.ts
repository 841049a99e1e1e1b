import { BODIES_PER_ACCOUNT, bodyBudgetLimits, DEFAULT_BODY_BYTES_IN_FLIGHT, fitBodyBudget, MAX_BODY_BYTES } from './body-budget';

describe('the body budget', () => {
  it('gives an account four bodies of the largest size by default, never more than the whole budget', () => {
    expect(bodyBudgetLimits(DEFAULT_BODY_BYTES_IN_FLIGHT)).toEqual({ total: DEFAULT_BODY_BYTES_IN_FLIGHT, perAccount: BODIES_PER_ACCOUNT * MAX_BODY_BYTES });
    expect(BODIES_PER_ACCOUNT).toBeGreaterThanOrEqual(4);
    expect(bodyBudgetLimits(2 * MAX_BODY_BYTES)).toEqual({ total: 2 * MAX_BODY_BYTES, perAccount: 2 * MAX_BODY_BYTES });
    expect(bodyBudgetLimits(8 * MAX_BODY_BYTES, MAX_BODY_BYTES).perAccount).toBe(MAX_BODY_BYTES);
  });

  it("takes what fits under both the account's share and the whole budget, naming the bound otherwise", () => {
    const limits = { total: 100, perAccount: 40 };
    expect(fitBodyBudget(limits, { total: 0, account: 0 }, 40)).toBe('fits');
    expect(fitBodyBudget(limits, { total: 30, account: 30 }, 11)).toBe('account');
    expect(fitBodyBudget(limits, { total: 90, account: 0 }, 10)).toBe('fits');
    expect(fitBodyBudget(limits, { total: 90, account: 0 }, 11)).toBe('process');
  });
});
