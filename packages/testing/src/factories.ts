import { DKIM_SEAL_PURPOSE, generateDkimKeyPair, newId, newOwnershipToken, seal, type DkimKeyPair } from '@mailer/domain';
import { createWebhookEndpoint, type Database, type WebhookEndpoint } from '@mailer/db';

/**
 * Rows written straight to the database, for tests whose subject is not the domain or
 * sender routes themselves (intake, delivery). Route tests go through HTTP instead.
 */
export interface ReadyDomain {
  id: string;
  name: string;
  dkim: DkimKeyPair;
}

export async function insertReadyDomain(
  db: Database,
  encryptionKey: Buffer,
  accountId: string,
  name: string,
): Promise<ReadyDomain> {
  const dkim = await generateDkimKeyPair();
  const id = newId('domain');
  await db`
    insert into domains (id, account_id, name, ownership_token, dkim_selector, dkim_public_key, dkim_private_key_sealed,
                         ownership_status, dkim_status, dmarc_status)
    values (${id}, ${accountId}, ${name}, ${newOwnershipToken()}, ${dkim.selector}, ${dkim.publicKey},
            ${seal(encryptionKey, DKIM_SEAL_PURPOSE, dkim.privateKeyPem)}, 'verified', 'verified', 'verified')`;
  return { id, name, dkim };
}

export interface SenderOptions {
  displayName?: string | null;
  policy?: 'require_tls' | 'opportunistic';
}

export async function insertSender(db: Database, accountId: string, domainId: string, email: string, options: SenderOptions = {}) {
  const id = newId('sender');
  await db`
    insert into senders (id, account_id, domain_id, email, email_key, display_name, transport_security_policy)
    values (${id}, ${accountId}, ${domainId}, ${email}, ${email.toLowerCase()}, ${options.displayName ?? null}, ${options.policy ?? 'opportunistic'})`;
  return { id, email };
}

/** An endpoint made through the store's plan check: a test that meets max_webhook_endpoints fails here, saying so. */
export async function insertWebhookEndpoint(db: Database, input: Parameters<typeof createWebhookEndpoint>[1]): Promise<WebhookEndpoint> {
  const created = await createWebhookEndpoint(db, input);
  if (created.kind === 'limit_reached') throw new Error(`the account already has its plan's max_webhook_endpoints (${created.quota.max})`);
  return created.endpoint;
}
