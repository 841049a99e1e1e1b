import {
  DKIM_RETIRING_PERIOD_MS,
  dkimKeyState,
  pendingKeysTakeOver,
  retiredBefore,
  retiringUntil,
  scheduledRotationCutoff,
  signsWithEd25519,
} from './dkim-lifecycle';

const at = (iso: string) => new Date(iso);
const DAY = 24 * 60 * 60 * 1000;

describe('dkimKeyState', () => {
  const activatedAt = at('2026-01-01T00:00:00Z');
  const supersededAt = at('2026-02-01T00:00:00Z');

  it('is pending until the key is activated, then active until superseded', () => {
    expect(dkimKeyState({ activatedAt: null, supersededAt: null }, at('2030-01-01T00:00:00Z'))).toBe('pending');
    expect(dkimKeyState({ activatedAt, supersededAt: null }, at('2030-01-01T00:00:00Z'))).toBe('active');
  });

  it('is retiring for seven days after a newer key took over, then retired', () => {
    expect(DKIM_RETIRING_PERIOD_MS).toBe(7 * DAY);
    expect(dkimKeyState({ activatedAt, supersededAt }, supersededAt)).toBe('retiring');
    expect(dkimKeyState({ activatedAt, supersededAt }, new Date(supersededAt.getTime() + 7 * DAY - 1))).toBe('retiring');
    expect(dkimKeyState({ activatedAt, supersededAt }, new Date(supersededAt.getTime() + 7 * DAY))).toBe('retired');
    expect(retiringUntil(supersededAt)).toEqual(at('2026-02-08T00:00:00Z'));
  });

  it('agrees with the retired cut-off a store uses', () => {
    const now = at('2026-03-01T00:00:00Z');
    const cutoff = retiredBefore(now);
    expect(dkimKeyState({ activatedAt, supersededAt: new Date(cutoff.getTime() - 1) }, now)).toBe('retired');
    expect(dkimKeyState({ activatedAt, supersededAt: cutoff }, now)).toBe('retired');
    expect(dkimKeyState({ activatedAt, supersededAt: new Date(cutoff.getTime() + 1) }, now)).toBe('retiring');
  });
});

describe('pendingKeysTakeOver', () => {
  it('waits for the pending RSA record', () => {
    expect(pendingKeysTakeOver({ rsa: 'missing', ed25519: 'verified' }, { rsa: 'verified', ed25519: 'verified' })).toBe(false);
    expect(pendingKeysTakeOver({ rsa: 'not_checked', ed25519: 'not_checked' }, { rsa: 'verified', ed25519: 'missing' })).toBe(false);
  });

  it('waits for the pending Ed25519 record only while the active one signs', () => {
    expect(pendingKeysTakeOver({ rsa: 'verified', ed25519: 'missing' }, { rsa: 'verified', ed25519: 'verified' })).toBe(false);
    expect(pendingKeysTakeOver({ rsa: 'verified', ed25519: 'verified' }, { rsa: 'verified', ed25519: 'verified' })).toBe(true);
    expect(pendingKeysTakeOver({ rsa: 'verified', ed25519: 'missing' }, { rsa: 'verified', ed25519: 'missing' })).toBe(true);
  });
});

describe('signsWithEd25519', () => {
  it('signs only once the record verified', () => {
    expect(signsWithEd25519('verified')).toBe(true);
    for (const status of ['not_checked', 'missing', 'mismatch'] as const) expect(signsWithEd25519(status)).toBe(false);
  });
});

describe('scheduledRotationCutoff', () => {
  it('makes keys active for the whole interval due', () => {
    const now = at('2026-04-01T00:00:00Z');
    expect(scheduledRotationCutoff(90 * DAY, now)).toEqual(at('2026-01-01T00:00:00Z'));
  });
});
