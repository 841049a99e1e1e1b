import { createLogger } from '@mailer/logger';
import { parseSmtpReply, type ReplyRule, type TransactionFeedback } from '@mailer/domain';
import { DestinationScheduler } from './destination-scheduler';
import type { ScheduledGroup } from './destination';

const logger = createLogger({ level: 'error', service: 'test' });
const tuning = { initial: 5, max: 20, suspendAfterFailures: 2, suspendMs: 60_000 };

/** A group whose transaction ends when the test says so, recording what happened to it. */
function group(accountId: string, name: string, log: string[]) {
  let finish: (feedback: TransactionFeedback) => void = () => undefined;
  const g: ScheduledGroup & { finish: (feedback: TransactionFeedback) => void } = {
    accountId,
    domain: `${name}.test`,
    deliveries: 1,
    run: () =>
      new Promise((resolve) => {
        log.push(`run ${name}`);
        finish = resolve;
      }),
    skip: async (cause) => void log.push(`skip ${name} ${cause}`),
    release: async () => void log.push(`release ${name}`),
    finish: (feedback) => finish(feedback),
  };
  return g;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('DestinationScheduler', () => {
  it('never gives one destination every slot: another destination queued later still runs at once', async () => {
    const log: string[] = [];
    const scheduler = new DestinationScheduler({ globalLimit: 3, activeLimit: 100, tuning, rules: [], providers: [], logger });
    const slow = Array.from({ length: 10 }, (_, i) => group('a', `slow${i}`, log));
    for (const g of slow) scheduler.hold(['mx.slow.test'], g);
    const fast = group('a', 'fast', log);
    scheduler.hold(['mx.fast.test'], fast);
    await tick();
    expect(log).toEqual(['run slow0', 'run slow1', 'run fast']);
    const stopped = scheduler.stop();
    for (const g of [slow[0]!, slow[1]!, fast]) g.finish('success');
    await stopped;
    expect(log.filter((l) => l.startsWith('release'))).toHaveLength(8);
  });

  it('starts no transaction while paused (attempt records lag), and starts them once it is not', async () => {
    const log: string[] = [];
    let paused = true;
    const scheduler = new DestinationScheduler({ globalLimit: 10, activeLimit: 100, tuning, rules: [], providers: [], logger, paused: () => paused });
    const waiting = group('a', 'waiting', log);
    scheduler.hold(['mx.one.test'], waiting);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(log).toEqual([]);
    paused = false;
    while (log.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['run waiting']);
    const stopped = scheduler.stop();
    waiting.finish('success');
    await stopped;
  });

  it('serves the accounts of a destination round robin', async () => {
    const log: string[] = [];
    const scheduler = new DestinationScheduler({ globalLimit: 10, activeLimit: 100, tuning: { ...tuning, initial: 1, max: 1 }, rules: [], providers: [], logger });
    const groups = [...Array.from({ length: 4 }, (_, i) => group('big', `big${i}`, log)), group('small', 'small0', log), group('small', 'small1', log)];
    for (const g of groups) scheduler.hold(['mx.one.test'], g);
    for (let i = 0; i < groups.length; i++) {
      await tick();
      groups.find((g) => log.at(-1) === `run ${g.domain.replace('.test', '')}`)!.finish('success');
      await tick();
    }
    // big0 ran as it came; then the two accounts in turn.
    expect(log).toEqual(['run big0', 'run big1', 'run small0', 'run big2', 'run small1', 'run big3']);
  });

  it('suspends a destination after consecutive connection failures and skips its queued groups without running them', async () => {
    const log: string[] = [];
    const scheduler = new DestinationScheduler({ globalLimit: 10, activeLimit: 100, tuning: { ...tuning, initial: 1 }, rules: [], providers: [], logger });
    const groups = Array.from({ length: 5 }, (_, i) => group('a', `down${i}`, log));
    for (const g of groups) scheduler.hold(['mx.down.test'], g);
    await tick();
    groups[0]!.finish('connection_failed');
    await tick();
    groups[1]!.finish('connection_failed');
    await tick();
    await tick();
    expect(log).toEqual(['run down0', 'run down1', 'skip down2 connection_failed', 'skip down3 connection_failed', 'skip down4 connection_failed']);
    expect(scheduler.snapshot()[0]).toMatchObject({ destination: 'mx.down.test', concurrency: 1, held: 0 });
    expect(scheduler.snapshot()[0]!.suspendedUntil).not.toBeNull();
  });

  it('makes claimers wait while WORKER_ACTIVE_LIMIT deliveries are held, and releases queued groups on stop', async () => {
    const log: string[] = [];
    const scheduler = new DestinationScheduler({ globalLimit: 2, activeLimit: 3, tuning, rules: [], providers: [], logger });
    const groups = Array.from({ length: 3 }, (_, i) => group('a', `g${i}`, log));
    for (const g of groups) scheduler.hold(['mx.one.test'], g);
    let roomy = false;
    const room = scheduler.room(new AbortController().signal).then(() => (roomy = true));
    await tick();
    expect(roomy).toBe(false);
    groups[0]!.finish('success');
    await room;
    expect(scheduler.held).toBe(2);
    const stopped = scheduler.stop();
    await tick();
    expect(log).toContain('release g2');
    groups[1]!.finish('success');
    await stopped;
    await expect(scheduler.room(new AbortController().signal)).rejects.toThrow('shutdown');
  });

  it('counts a message being claimed until its groups are held, so that claims under way at once stay within WORKER_ACTIVE_LIMIT', async () => {
    const log: string[] = [];
    const scheduler = new DestinationScheduler({ globalLimit: 1, activeLimit: 3, tuning, rules: [], providers: [], logger });
    const signal = new AbortController().signal;
    const claims = [await scheduler.room(signal), await scheduler.room(signal), await scheduler.room(signal)];
    let fourth = false;
    const fourthRoom = scheduler.room(signal).then((room) => ((fourth = true), room));
    await tick();
    expect(fourth).toBe(false);
    // The first claim's message is held: its room is its group's now, and there is still none.
    const held = group('a', 'held', log);
    scheduler.hold(['mx.one.test'], held);
    claims[0]!.release();
    claims[0]!.release();
    await tick();
    expect(fourth).toBe(false);
    // A claimer that gives up while waiting leaves the queue of waiters.
    const givingUp = new AbortController();
    const abandoned = scheduler.room(givingUp.signal);
    givingUp.abort(new Error('gave up'));
    await expect(abandoned).rejects.toThrow('gave up');
    // The second claim had nothing to hold.
    claims[1]!.release();
    await fourthRoom;
    expect(scheduler.held).toBe(1);
    // Held 1, claiming 2 (the third and the fourth): full again, until the scheduler stops.
    let fifth = false;
    const fifthRoom = scheduler.room(signal).then(() => (fifth = true));
    await tick();
    expect(fifth).toBe(false);
    const stopped = scheduler.stop();
    held.finish('success');
    await stopped;
    await expect(fifthRoom).rejects.toThrow('shutdown');
    expect(log).toEqual(['run held']);
  });

  it("applies a matching reply rule to the destination in this daemon alone when nothing is shared: its concurrency, then a suspension", async () => {
    const log: string[] = [];
    const applied: string[] = [];
    const replyRules: ReplyRule[] = [
      { name: 'slow-down', code: 421, pattern: /slow down/i, action: { kind: 'concurrency', connections: 1 }, durationMs: 60_000 },
      { name: 'go-away', code: 554, action: { kind: 'suspend' }, durationMs: 60_000 },
    ];
    const scheduler = new DestinationScheduler({ globalLimit: 10, activeLimit: 100, tuning, rules: [], providers: [], logger, replyRules, onReplyRule: (r) => applied.push(r.name) });
    const groups = Array.from({ length: 4 }, (_, i) => group('a', `g${i}`, log));
    for (const g of groups.slice(0, 2)) scheduler.hold(['mx.one.test'], g);
    await tick();
    expect(log).toEqual(['run g0', 'run g1']);
    scheduler.observeReply(['mx.one.test'], parseSmtpReply('250 2.0.0 slow down'));
    scheduler.observeReply(['mx.other.test'], parseSmtpReply('421 4.7.0 Slow down'));
    expect(applied).toEqual([]);
    scheduler.observeReply(['mx.one.test'], parseSmtpReply('421 4.7.0 Slow down please'));
    expect(applied).toEqual(['slow-down']);
    for (const g of groups.slice(2)) scheduler.hold(['mx.one.test'], g);
    groups[0]!.finish('success');
    await tick();
    groups[1]!.finish('success');
    await tick();
    // One transaction at a time now: g2 runs once both are over, g3 waits for it.
    expect(log).toEqual(['run g0', 'run g1', 'run g2']);
    expect(scheduler.snapshot()[0]).toMatchObject({ concurrency: 1, suspendedUntil: null });
    scheduler.observeReply(['mx.one.test'], parseSmtpReply('554 5.7.1 Go away'));
    groups[2]!.finish('throttled');
    await tick();
    await tick();
    expect(log).toEqual(['run g0', 'run g1', 'run g2', 'skip g3 rate_limited_by_recipient']);
    expect(applied).toEqual(['slow-down', 'go-away']);
    expect(scheduler.snapshot()[0]!.suspendedUntil).toEqual(expect.any(String));
    await scheduler.stop();
  });
});
