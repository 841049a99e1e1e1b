import { onAbort } from './abort-listeners';

describe('onAbort', () => {
  it('calls each listener still added once when the signal aborts, and none that was removed', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const removals = Array.from({ length: 5 }, (_, i) => onAbort(controller.signal, () => calls.push(i)));
    removals[1]!();
    removals[3]!();
    controller.abort(new Error('shutdown'));
    controller.abort(new Error('again'));
    expect(calls).toEqual([0, 2, 4]);
    // Removing after the abort changes nothing.
    removals[0]!();
  });

  it('calls the listener at once on a signal aborted already, and listens anew to another signal', () => {
    const aborted = AbortSignal.abort(new Error('gone'));
    let called = 0;
    onAbort(aborted, () => called++);
    expect(called).toBe(1);
    const controller = new AbortController();
    onAbort(controller.signal, () => called++);
    expect(called).toBe(1);
    controller.abort();
    expect(called).toBe(2);
  });
});
