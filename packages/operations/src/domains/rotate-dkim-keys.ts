import { inTransaction, insertPendingDkimKeys, webhookEventsOutbox, type Database, type DomainRow } from '@mailer/db';
import { requiredDnsRecords, type ReturnPathSettings } from '@mailer/domain';
import { loadPublishedDkimKeys, newSealedDkimKeys } from './dkim-keys';

/** Whether this call started the rotation, or one was pending already (it is left as it is). */
export type DkimRotationStart = 'started' | 'already_pending';

/**
 * Starts a rotation of the domain's DKIM keys (docs/api-decisions.md, "DKIM keys"): a pending RSA
 * and Ed25519 key on new selectors, which sign once check-dns verifies their records. What
 * `POST /v1/domains/{id}/dkim/rotate` and DKIM_ROTATION_INTERVAL run. The
 * `domain.dkim_rotation_pending` webhook event, naming the records to publish, is recorded in
 * the transaction that stores the keys.
 */
export async function startDkimRotation(
  db: Database,
  encryptionKey: Buffer,
  returnPath: ReturnPathSettings,
  domain: DomainRow,
  now: Date,
): Promise<DkimRotationStart> {
  const keys = await newSealedDkimKeys(encryptionKey);
  return inTransaction(db, async (tx): Promise<DkimRotationStart> => {
    if (!(await insertPendingDkimKeys(tx.sql, domain.id, keys, now))) return 'already_pending';
    const published = await loadPublishedDkimKeys(tx.sql, domain, now);
    const records = requiredDnsRecords(domain, returnPath, published).filter((r) => r.state === 'pending');
    await tx.commit(
      webhookEventsOutbox(tx, [{ accountId: domain.accountId, type: 'domain.dkim_rotation_pending', data: { domain_id: domain.id, name: domain.name, records }, at: now }]),
    );
    return 'started';
  });
}
