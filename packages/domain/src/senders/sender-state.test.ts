import { effectiveSenderState } from './sender-state';

describe('effectiveSenderState', () => {
  it('is active only when enabled and the domain is ready', () => {
    expect(effectiveSenderState('enabled', true)).toBe('active');
    expect(effectiveSenderState('enabled', false)).toBe('domain_not_ready');
  });

  it('is disabled when configured disabled, whatever the domain', () => {
    expect(effectiveSenderState('disabled', true)).toBe('disabled');
    expect(effectiveSenderState('disabled', false)).toBe('disabled');
  });
});
