import { RECORD_BACKLOG_MS, RecordBacklog } from './record-backlog';

describe('RecordBacklog', () => {
  it('is behind while a record has waited longer than RECORD_BACKLOG_MS, and no longer once it settles', async () => {
    let now = 0;
    const backlog = new RecordBacklog(() => now);
    let finish!: () => void;
    const record = backlog.track(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(backlog.behind).toBe(false);
    now = RECORD_BACKLOG_MS + 1;
    expect(backlog.behind).toBe(true);
    finish();
    await record;
    expect(backlog.behind).toBe(false);
    // A record that fails counts no longer either.
    await expect(backlog.track(() => Promise.reject(new Error('lost')))).rejects.toThrow('lost');
    expect(backlog.behind).toBe(false);
  });
});
