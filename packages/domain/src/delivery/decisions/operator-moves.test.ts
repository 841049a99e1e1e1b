import { CANCELED_BY_OPERATOR } from '../cancel';
import { applyQueueActionTo, expireHeld, makeWaitingDue, retryDeferred } from './operator-moves';
import { delivery, message } from '../../testing/locked-messages';

const now = new Date('2026-12-01T12:00:00Z');
const later = new Date('2026-12-01T18:00:00Z');
const cause = { code: 'greylisted' as const, permanent: false, smtp_code: 451, enhanced_status: null };

describe("an operator's retry", () => {
  it('makes only the deferred deliveries due now', () => {
    const m = message([delivery('dlv_a', { status: 'deferred', cause, nextAttemptAt: later }), delivery('dlv_b', { nextAttemptAt: later })]);
    expect(retryDeferred(m, now)).toEqual({
      transitions: [{ reason: 'made_due', delivery: 'dlv_a', to: 'deferred', cause, at: now, nextAttemptAt: now }],
      answer: { changed: 1, messages: [{ emailId: 'eml_1', accountId: 'acc_1' }] },
    });
  });
});

describe('a resumed account', () => {
  it('makes every waiting delivery due later due now, naming each message once', () => {
    const paused = message([delivery('dlv_a', { nextAttemptAt: later }), delivery('dlv_b', { status: 'deferred', nextAttemptAt: later }), delivery('dlv_c')]);
    const other = message([delivery('dlv_d', { emailId: 'eml_2', status: 'sending', nextAttemptAt: later })]);
    const changes = makeWaitingDue([paused, other], now);
    expect(changes.transitions!.map((t) => [t.delivery, t.to])).toEqual([
      ['dlv_a', 'queued'],
      ['dlv_b', 'deferred'],
    ]);
    expect(changes.answer).toEqual({ changed: 2, messages: [{ emailId: 'eml_1', accountId: 'acc_1' }] });
  });
});

describe('queue actions', () => {
  const m = message([
    delivery('dlv_a', { status: 'deferred', cause }),
    delivery('dlv_b', { status: 'deferred', heldAt: now }),
    delivery('dlv_c'),
    delivery('dlv_d', { status: 'sending' }),
  ]);
  const all = new Set(['dlv_a', 'dlv_b', 'dlv_c', 'dlv_d']);
  const moved = (action: Parameters<typeof applyQueueActionTo>[2], selected = all) =>
    applyQueueActionTo([m], selected, action, now).transitions!.map((t) => `${t.reason}:${t.delivery as string}:${t.to}`);

  it('holds waiting deliveries not held, releases held ones, deletes any waiting one, flushes deferred ones not held', () => {
    expect(moved('hold')).toEqual(['held_by_operator:dlv_a:deferred', 'held_by_operator:dlv_c:queued']);
    expect(moved('release')).toEqual(['released_by_operator:dlv_b:deferred']);
    expect(moved('delete')).toEqual(['deleted_by_operator:dlv_a:failed', 'deleted_by_operator:dlv_b:failed', 'deleted_by_operator:dlv_c:failed']);
    expect(moved('flush')).toEqual(['made_due:dlv_a:deferred']);
  });

  it('acts only on the selected deliveries, a delete with its own cause and a release due now', () => {
    expect(moved('delete', new Set(['dlv_c']))).toEqual(['deleted_by_operator:dlv_c:failed']);
    expect(applyQueueActionTo([m], all, 'delete', now).transitions![0]!.cause).toEqual(CANCELED_BY_OPERATOR);
    expect(applyQueueActionTo([m], all, 'release', now).transitions![0]!.nextAttemptAt).toEqual(now);
  });

  it('expires a held delivery past its maximum age, keeping the codes of its last deferral', () => {
    const maxAgeMs = 3_600_000;
    const old = message([
      delivery('dlv_a', { status: 'deferred', heldAt: now, cause: { ...cause, smtp_code: 452 }, createdAt: new Date(now.getTime() - maxAgeMs) }),
      delivery('dlv_b', { status: 'deferred', heldAt: now, createdAt: new Date(now.getTime() - maxAgeMs + 1) }),
    ]);
    const changes = expireHeld([old], new Set(['dlv_a', 'dlv_b']), now, maxAgeMs);
    expect(changes.transitions).toEqual([
      { reason: 'expired_while_held', delivery: 'dlv_a', to: 'failed', cause: { code: 'retries_exhausted', permanent: true, smtp_code: 452, enhanced_status: null }, at: now },
    ]);
  });
});
