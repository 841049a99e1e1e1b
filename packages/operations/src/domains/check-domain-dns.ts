import {
  findDomainView,
  inTransaction,
  listDkimKeys,
  lockDomain,
  recordDnsCheck,
  recordPendingDkimStatuses,
  switchToPendingDkimKeys,
  webhookEventsOutbox,
  type Database,
  type DomainRow,
  type DomainView,
} from '@mailer/db';
import { observeDomainDns, type DnsResolver } from '@mailer/dns';
import { evaluateDnsCheck, isDomainReady, pendingKeysTakeOver, retiredBefore, type DkimAlgorithm, type DkimRecordStatuses, type ReturnPathSettings } from '@mailer/domain';
import { ensureEd25519Key } from './dkim-keys';
import { serializeDomain } from './domain-representation';

/**
 * One bounded check of a domain's ownership, DKIM (both keys, and a pending rotation's), DMARC and
 * return-path records, recorded on the domain: what `POST /v1/domains/{id}/check-dns`, the
 * operator's `domain check` and the daemons' re-check run. A domain without its Ed25519 key gets
 * it first (ensureEd25519Key). When a pending rotation's records verified, signing switches to
 * its keys in the transaction that records the check (pendingKeysTakeOver). When the check
 * changes the domain's readiness, a `domain.status_changed` webhook event carrying the domain's
 * representation is recorded in the same transaction. Returns the domain as it reads after the
 * check, or undefined when it stopped being active meanwhile (callers answer that as
 * domain_not_found).
 */
export async function checkDomainDns(
  db: Database,
  dns: DnsResolver,
  returnPath: ReturnPathSettings,
  encryptionKey: Buffer,
  found: DomainRow,
  now: () => Date,
): Promise<DomainView | undefined> {
  const startedAt = now();
  const domain = await ensureEd25519Key(db, encryptionKey, found);
  const pending = (await listDkimKeys(db, domain.id)).filter((key) => key.supersededAt === null);
  const observation = await observeDomainDns(dns, domain, returnPath.label, pending.map((key) => key.selector));
  const outcome = evaluateDnsCheck(observation, { ...domain, pendingDkim: pending, returnPath });
  return inTransaction(db, async (tx) => {
    const completedAt = now();
    const before = await lockDomain(tx.sql, domain.accountId, domain.id);
    if (!before) return undefined;
    // A concurrent check may have switched keys since they were read: what was seen at the old selectors is then not recorded.
    const keysMoved = before.dkimSelector !== domain.dkimSelector || before.dkimEd25519Selector !== domain.dkimEd25519Selector;
    const { dkim, dkim_ed25519: dkimEd25519, ...others } = outcome.components;
    const recorded = keysMoved ? { ...outcome, components: others, pendingDkim: [] } : outcome;
    if (!(await recordDnsCheck(tx.sql, domain.accountId, domain.id, { ...recorded, startedAt, completedAt }))) return undefined;
    if (recorded.pendingDkim.length > 0) {
      await tx.send(recordPendingDkimStatuses(tx.sql, domain.id, recorded.pendingDkim));
      const statusOf = (algorithm: DkimAlgorithm) => {
        const key = pending.find((k) => k.algorithm === algorithm);
        return recorded.pendingDkim.find((p) => p.selector === key?.selector)?.status ?? key?.recordStatus ?? 'not_checked';
      };
      const active: DkimRecordStatuses = { rsa: dkim ?? before.dkimStatus, ed25519: dkimEd25519 ?? before.dkimEd25519Status };
      if (pendingKeysTakeOver({ rsa: statusOf('rsa'), ed25519: statusOf('ed25519') }, active)) {
        await tx.send(switchToPendingDkimKeys(tx.sql, before, completedAt, retiredBefore(completedAt)));
      }
    }
    const view = await findDomainView(tx.sql, domain.accountId, domain.id);
    if (view && isDomainReady(view) !== isDomainReady(before)) {
      await tx.send(webhookEventsOutbox(tx, [{ accountId: domain.accountId, type: 'domain.status_changed', data: serializeDomain(view), at: completedAt }]));
    }
    return view;
  });
}
