import { Batcher } from './batcher';

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
});
