import { simulatedOutcome } from './simulated-outcome';

describe('simulatedOutcome', () => {
  it.each([
    ['bounce@example.test', 0, 'bounced', 'recipient_unknown', false],
    ['Bounce.hard+1@example.test', 0, 'bounced', 'recipient_unknown', false],
    ['defer@example.test', 0, 'deferred', 'greylisted', false],
    ['defer-later@example.test', 1, 'accepted', null, false],
    ['complain@example.test', 0, 'accepted', null, true],
    ['suppress-me@example.test', 0, 'failed', 'recipient_suppressed', false],
    ['alice@example.test', 0, 'accepted', null, false],
    ['alice@bounce.test', 0, 'accepted', null, false],
    ['"bounce@x"@example.test', 0, 'accepted', null, false],
  ])('%s after %i attempts: %s (%s)', (recipient, before, outcome, cause, complained) => {
    const simulated = simulatedOutcome(recipient, before);
    expect(simulated.outcome.outcome).toBe(outcome);
    expect(simulated.outcome.cause?.code ?? null).toBe(cause);
    expect(simulated.complained).toBe(complained);
  });
});
