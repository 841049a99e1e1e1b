import { createReadingLimit } from './reading-limit';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('createReadingLimit', () => {
  it('runs at most its limit at once, the others in arrival order, and a failed task gives its turn on', async () => {
    const limit = createReadingLimit(2);
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let most = 0;
    const results = gates.map((gate, i) =>
      limit
        .run(async () => {
          started.push(i);
          most = Math.max(most, limit.running());
          await gate.promise;
          if (i === 1) throw new Error('unparseable');
          return i;
        })
        .catch((error: Error) => error.message),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect([limit.running(), limit.waiting()]).toEqual([2, 3]);

    gates[1]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    // A newcomer while others wait queues behind them.
    const late = limit.run(async () => 'late');
    for (const i of [0, 2, 3, 4]) gates[i]!.resolve();
    expect(await Promise.all([...results, late])).toEqual([0, 'unparseable', 2, 3, 4, 'late']);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect([limit.running(), limit.waiting()]).toEqual([0, 0]);
  });
});
