import { nextStep, type RetryPolicyOptions } from './retry-policy';

const policy: RetryPolicyOptions = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 10_000 };
const status = (code: number, retryAfter: number | null = null) => ({ kind: 'status' as const, status: code, retryAfter });

describe('the chaos client retry policy', () => {
  it('takes any 2xx as accepted, even on a late attempt', () => {
    expect(nextStep(status(202), 1, policy)).toEqual({ action: 'accepted' });
    expect(nextStep(status(200), 5, policy)).toEqual({ action: 'accepted' });
  });

  it('retries network errors, every 5xx and 429 with an exponential backoff capped at maxDelayMs', () => {
    expect(nextStep({ kind: 'network_error' }, 1, policy)).toEqual({ action: 'retry', delayMs: 100 });
    expect(nextStep(status(500), 2, policy)).toEqual({ action: 'retry', delayMs: 200 });
    expect(nextStep(status(502), 3, policy)).toEqual({ action: 'retry', delayMs: 400 });
    expect(nextStep(status(429), 4, policy)).toEqual({ action: 'retry', delayMs: 800 });
    expect(nextStep({ kind: 'network_error' }, 4, { ...policy, maxDelayMs: 500 })).toEqual({ action: 'retry', delayMs: 500 });
  });

  it('waits Retry-After when the API gives one, up to maxRetryAfterMs', () => {
    expect(nextStep(status(503, 2), 1, policy)).toEqual({ action: 'retry', delayMs: 2_000 });
    expect(nextStep(status(429, 0), 3, policy)).toEqual({ action: 'retry', delayMs: 0 });
    expect(nextStep(status(503, 3600), 1, policy)).toEqual({ action: 'retry', delayMs: 10_000 });
  });

  it('never retries another 4xx: the request itself was refused', () => {
    for (const code of [400, 401, 404, 409, 422]) expect(nextStep(status(code), 1, policy)).toEqual({ action: 'refused' });
  });

  it('gives up once maxAttempts requests have failed', () => {
    expect(nextStep(status(503, 1), 5, policy)).toEqual({ action: 'abandoned' });
    expect(nextStep({ kind: 'network_error' }, 6, policy)).toEqual({ action: 'abandoned' });
    // A refusal is still a refusal, not an abandonment.
    expect(nextStep(status(422), 5, policy)).toEqual({ action: 'refused' });
  });
});
