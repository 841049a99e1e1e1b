import { Batcher } from './batcher';
import { DatabaseStallError, isDatabaseUnavailable, withinStall } from './database-errors';

describe('Batcher', () => {
  it('sends the first call at once and the calls made meanwhile together, answering each in order', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return items.map((n) => n * 2);
    });
    const answers = await Promise.all([1, 2, 3, 4].map((n) => batcher.submit(n)));
    expect(answers).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('runs a failed batch one by one, so only the bad call fails', async () => {
    const batcher = new Batcher<number, number>(async (items) => {
      if (items.includes(13)) throw new Error('bad item');
      return items;
    });
    const first = batcher.submit(1);
    const rest = [2, 13, 3].map((n) => batcher.submit(n).then((v) => ({ ok: v }), (e: Error) => ({ error: e.message })));
    expect(await first).toBe(1);
    expect(await Promise.all(rest)).toEqual([{ ok: 2 }, { error: 'bad item' }, { ok: 3 }]);
  });

  it('fails a batch left unanswered past stallMs as the database being unavailable, and sends the next one', async () => {
    let first = true;
    const batcher = new Batcher<number, number>(
      (items) => {
        if (first) {
          first = false;
          // The statement the driver never answers.
          return new Promise<number[]>(() => undefined);
        }
        return Promise.resolve(items.map((n) => n + 1));
      },
      { stallMs: 50 },
    );
    const stalled = batcher.submit(1).then(
      () => undefined,
      (error: unknown) => error,
    );
    const next = batcher.submit(2);
    expect(isDatabaseUnavailable(await stalled)).toBe(true);
    expect(await next).toBe(3);
  });

  it('never runs a stalled batch again one by one when it fails late', async () => {
    const runs: number[][] = [];
    let rejectFirst: (error: Error) => void = () => undefined;
    const batcher = new Batcher<number, number>(
      (items) => {
        runs.push(items);
        if (runs.length === 1) return new Promise<number[]>((_, reject) => (rejectFirst = reject));
        return Promise.resolve(items);
      },
      { stallMs: 20 },
    );
    const calls = [batcher.submit(1), batcher.submit(2), batcher.submit(3)].map((p) => p.then(String, () => 'failed'));
    expect(await Promise.all(calls)).toEqual(['failed', '2', '3']);
    rejectFirst(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toEqual([[1], [2, 3]]);
  });
});

describe('withinStall', () => {
  it('answers as the work does within the bound, and fails an unanswered one as the database being unavailable', async () => {
    expect(await withinStall(Promise.resolve('rows'), 50)).toBe('rows');
    await expect(withinStall(Promise.reject(new Error('syntax')), 50)).rejects.toThrow('syntax');
    const unanswered = await withinStall(new Promise<never>(() => undefined), 20).catch((error: unknown) => error);
    expect(unanswered).toBeInstanceOf(DatabaseStallError);
    expect(isDatabaseUnavailable(unanswered)).toBe(true);
  });
});
