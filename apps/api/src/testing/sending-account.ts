import { randomUUID } from 'node:crypto';
import { setAccountPlan } from '@mailer/operations';
import type { PlanLimits } from '@mailer/domain';
import { insertReadyDomain, insertSender } from '@mailer/testing';
import { startTestApi, type TestApi } from './test-api';

export interface SendingAccountOptions {
  domain?: string;
  sender?: string;
  displayName?: string | null;
  limits?: Partial<PlanLimits>;
}

/** A plan no intake test reaches unless it means to. */
export const GENEROUS_LIMITS: PlanLimits = { perMinute: 10_000, perHour: 10_000, perDay: 10_000, per30Days: 10_000, maxActive: 10_000 };

/** An account with a ready domain and an active sender, for tests whose subject is intake. */
export async function sendingAccount(api: TestApi, options: SendingAccountOptions = {}) {
  const provisioned = await api.createAccount();
  const accountId = provisioned.account.id;
  const domainName = options.domain ?? 'acme.test';
  const domain = await insertReadyDomain(api.deps.db, api.config.encryptionKey, accountId, domainName);
  const sender = await insertSender(api.deps.db, accountId, domain.id, options.sender ?? `hello@${domainName}`, {
    displayName: options.displayName === undefined ? 'Acme' : options.displayName,
  });
  if (options.limits) await setAccountPlan(api.deps.db, accountId, options.limits);
  const auth = `Bearer ${provisioned.sending_key}`;
  return {
    ...provisioned,
    accountId,
    domain,
    sender,
    auth,
    /** A valid message from the sender; `overrides` replace members. */
    message: (overrides: Record<string, unknown> = {}) => ({
      from: sender.email,
      to: ['ann@example.test'],
      subject: 'Your receipt',
      content: { plain: 'Thanks for your order.' },
      ...overrides,
    }),
    send: (body: unknown, idempotencyKey: string = randomUUID()) =>
      api.http.post('/v1/emails').set('Authorization', auth).set('Idempotency-Key', idempotencyKey).send(body as object),
    get: (path: string) => api.http.get(path).set('Authorization', auth),
  };
}

export type SendingAccount = Awaited<ReturnType<typeof sendingAccount>>;

/** A test API and an account on GENEROUS_LIMITS, made before the file's tests and closed after them. */
export function intakeTestBed(): { api: TestApi; acme: SendingAccount } {
  const bed = {} as { api: TestApi; acme: SendingAccount };
  beforeAll(async () => {
    bed.api = await startTestApi();
    bed.acme = await sendingAccount(bed.api, { limits: GENEROUS_LIMITS });
  });
  afterAll(() => bed.api.close());
  return bed;
}
