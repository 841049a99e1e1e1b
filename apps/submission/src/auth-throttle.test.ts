import { AUTH_THROTTLE_WINDOW_MS, AuthThrottle, MAX_FAILED_AUTHS } from './auth-throttle';

describe('AuthThrottle', () => {
  const clock = (start = Date.parse('2026-11-27T10:00:00.000Z')) => {
    let at = start;
    return { now: () => new Date(at), advance: (ms: number) => (at += ms) };
  };

  it('refuses an address for ten minutes once it failed ten times within ten minutes, and no other address', () => {
    const time = clock();
    const throttle = new AuthThrottle(time.now);
    for (let i = 0; i < MAX_FAILED_AUTHS - 1; i++) {
      throttle.recordFailure('192.0.2.1');
      time.advance(60_000);
    }
    expect(throttle.isBlocked('192.0.2.1')).toBe(false);
    throttle.recordFailure('192.0.2.1');
    expect(throttle.isBlocked('192.0.2.1')).toBe(true);
    expect(throttle.isBlocked('192.0.2.2')).toBe(false);
    time.advance(AUTH_THROTTLE_WINDOW_MS - 1);
    expect(throttle.isBlocked('192.0.2.1')).toBe(true);
    time.advance(1);
    expect(throttle.isBlocked('192.0.2.1')).toBe(false);
  });

  it('forgets failures older than the window', () => {
    const time = clock();
    const throttle = new AuthThrottle(time.now);
    for (let i = 0; i < MAX_FAILED_AUTHS - 1; i++) throttle.recordFailure('192.0.2.1');
    time.advance(AUTH_THROTTLE_WINDOW_MS);
    throttle.recordFailure('192.0.2.1');
    expect(throttle.isBlocked('192.0.2.1')).toBe(false);
  });
});
