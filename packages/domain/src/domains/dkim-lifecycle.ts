import type { DkimAlgorithm } from '../crypto/dkim-key';
import type { VerificationStatus } from './dns-check';

/**
 * A DKIM key's life (docs/api-decisions.md, "DKIM keys"): `pending` from the rotation that made
 * it until check-dns verifies its record, then `active` (it signs) until a newer key becomes
 * active, then `retiring` for DKIM_RETIRING_PERIOD_MS (mail signed with it may still be in
 * flight, so its record must stay), then `retired`: its record is safe to remove.
 */
export const DKIM_KEY_STATES = ['pending', 'active', 'retiring', 'retired'] as const;
export type DkimKeyState = (typeof DKIM_KEY_STATES)[number];

/** Seven days: longer than any retry schedule keeps a message queued, with room for slow receivers. */
export const DKIM_RETIRING_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;

/** When a key became active and when a newer one replaced it: both null while pending. */
export interface DkimKeyTimes {
  activatedAt: Date | null;
  supersededAt: Date | null;
}

export function dkimKeyState(key: DkimKeyTimes, now: Date): DkimKeyState {
  if (key.activatedAt === null) return 'pending';
  if (key.supersededAt === null) return 'active';
  return now.getTime() < retiringUntil(key.supersededAt).getTime() ? 'retiring' : 'retired';
}

/** Until when a key replaced at `supersededAt` stays `retiring`. */
export const retiringUntil = (supersededAt: Date): Date => new Date(supersededAt.getTime() + DKIM_RETIRING_PERIOD_MS);

/** Keys replaced before this instant are `retired` at `now`: the cut-off a store deletes older records by. */
export const retiredBefore = (now: Date): Date => new Date(now.getTime() - DKIM_RETIRING_PERIOD_MS);

/** The verification status of one key's record, by algorithm: one RSA and one Ed25519 key per generation. */
export type DkimRecordStatuses = Record<DkimAlgorithm, VerificationStatus>;

/**
 * Whether signing switches to the pending keys: their RSA record verified, and their Ed25519
 * record too unless the active Ed25519 record is not verified either (then no Ed25519 signature
 * is lost by switching, and a domain that never published Ed25519 is not held back by it).
 */
export function pendingKeysTakeOver(pending: DkimRecordStatuses, active: DkimRecordStatuses): boolean {
  if (pending.rsa !== 'verified') return false;
  return pending.ed25519 === 'verified' || active.ed25519 !== 'verified';
}

/** The Ed25519 signature is added once its record verifies (RFC 8463 keys unknown to a receiver only cost a failed signature, but say nothing). */
export const signsWithEd25519 = (status: VerificationStatus): boolean => status === 'verified';

/**
 * DKIM_ROTATION_INTERVAL: a domain without a pending rotation whose keys became active before
 * this instant is due for a scheduled rotation at `now`.
 */
export const scheduledRotationCutoff = (intervalMs: number, now: Date): Date => new Date(now.getTime() - intervalMs);
