import { ClaimQueue, type QueuedMessage } from './claim-queue';
import type { ClaimRoom } from './destination-scheduler';

const tick = () => new Promise((resolve) => setImmediate(resolve));
const messages = (accountId: string, count: number) => Array.from({ length: count }, (_, i) => ({ emailId: `${accountId}${i}`, accountId }));

/** A claim queue whose claims end when the test says so, with room for `rooms` claims at once. */
function harness(options: { capacity?: number; inFlight?: number; rooms?: number } = {}) {
  const claimed: string[] = [];
  const running: (() => void)[] = [];
  let rooms = options.rooms ?? Infinity;
  const roomWaiters: ((room: ClaimRoom) => void)[] = [];
  const room = (): ClaimRoom => {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        rooms++;
        roomWaiters.shift()?.(room());
      },
    };
  };
  const queue = new ClaimQueue({
    capacity: options.capacity ?? 100,
    inFlight: options.inFlight ?? 100,
    room: () => {
      if (rooms > 0) {
        rooms--;
        return Promise.resolve(room());
      }
      return new Promise((resolve) => roomWaiters.push((r) => (rooms--, resolve(r))));
    },
    claim: (message: QueuedMessage, given: ClaimRoom) =>
      new Promise<void>((resolve) => {
        claimed.push(message.emailId);
        running.push(() => {
          given.release();
          resolve();
        });
      }),
  });
  return { queue, claimed, finishOne: () => running.shift()?.() };
}

describe('ClaimQueue', () => {
  it("takes accounts in turn: another account's message is claimed next, not after a backlog", async () => {
    const h = harness({ rooms: 2 });
    await h.queue.add(messages('a', 50));
    await h.queue.add(messages('b', 2));
    await tick();
    expect(h.claimed).toEqual(['a0', 'a1']);
    for (let i = 0; i < 4; i++) {
      h.finishOne();
      await tick();
    }
    expect(h.claimed).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'a3']);
  });

  it('keeps at most inFlight claims under way', async () => {
    const h = harness({ inFlight: 3 });
    await h.queue.add(messages('a', 10));
    await tick();
    expect(h.claimed).toHaveLength(3);
    h.finishOne();
    await tick();
    expect(h.claimed).toHaveLength(4);
  });

  it('makes a job wait while its messages do not fit, and admits it once they do', async () => {
    const h = harness({ capacity: 5, rooms: 1 });
    await h.queue.add(messages('a', 5));
    let admitted = false;
    const second = h.queue.add(messages('b', 3)).then(() => (admitted = true));
    await tick();
    expect(h.queue.waiting).toBe(4);
    h.finishOne();
    await tick();
    expect(admitted).toBe(false);
    h.finishOne();
    await second;
    expect(h.queue.waiting).toBe(5);
  });

  it('hands back what waits when stopped, and refuses jobs from then on', async () => {
    const h = harness({ capacity: 5, rooms: 0 });
    await h.queue.add(messages('a', 5));
    const waitingJob = h.queue.add(messages('b', 3));
    expect(h.queue.stop().map((m) => m.emailId)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    await expect(waitingJob).rejects.toThrow('shutdown');
    await expect(h.queue.add(messages('c', 1))).rejects.toThrow('shutdown');
  });
});
