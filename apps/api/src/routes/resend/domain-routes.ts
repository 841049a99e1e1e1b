import { z } from 'zod';
import { findDomainView, listDomains } from '@mailer/db';
import { checkDomainDns, createDomain } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { domainNameInput } from '../domains/domain.schema';
import { deleteOrRefuse, domainNotFound, requireDomain, requireDomainView } from '../domains/domain-lookup';
import { domainDnsRecords } from '../domains/domain-dns-records';
import { serializeDomain } from '@mailer/operations';
import { resendDialect } from './resend-dialect';
import { resendDomainSchema, toResendDomain } from './resend-domain.representation';
import { resendListSchema, resendPage, resendPageQuerySchema, resendPosition } from './resend-page';

const refused = (message: string) => z.unknown().meta({ description: `Refused: ${message}.` }).optional();

/** Resend's create body: only `name` has a meaning here; every option is refused by name rather than dropped. */
const createBody = z
  .strictObject({
    name: domainNameInput,
    region: refused('the service has no regions'),
    custom_return_path: refused('the return path is always bounces.<domain>'),
    capabilities: refused('sending only'),
    open_tracking: refused('opens are not tracked'),
    click_tracking: refused('clicks are not tracked'),
    tls: refused('TLS is always opportunistic or as the receiver\'s policy asks'),
    tracking_subdomain: refused('opens and clicks are not tracked'),
  })
  .superRefine((body, ctx) => {
    for (const [name, value] of Object.entries(body)) if (name !== 'name' && value !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'is not supported' });
  })
  .meta({ id: 'ResendCreateDomainRequest' });

const common = { tag: 'resend', dialect: resendDialect } as const;

export const resendCreateDomainRoute = defineRoute({
  ...common,
  method: 'post',
  path: '/resend/domains',
  operationId: 'resendCreateDomain',
  summary: "Resend's domain create: POST /v1/domains (a management key).",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_already_exists', 'external_id_conflict', 'domain_limit_exceeded'],
  body: createBody,
  responses: { 200: { description: 'Created (or the existing domain of this name, as /v1 retries).', schema: resendDomainSchema } },
  async handle({ res, deps, key, body }) {
    const outcome = await createDomain(deps.db, deps.config.encryptionKey, key.accountId, { name: body().name, externalId: null }, deps.now);
    const records = await domainDnsRecords(deps, await requireDomain(deps.db, key.accountId, outcome.domain.id));
    sendJson(res, 200, toResendDomain(outcome.domain, records));
  },
});

export const resendListDomainsRoute = defineRoute({
  ...common,
  method: 'get',
  path: '/resend/domains',
  operationId: 'resendListDomains',
  summary: "The account's domains as Resend lists them (GET /v1/domains).",
  auth: { kind: 'management', scope: 'domains:read' },
  query: resendPageQuerySchema,
  errors: ['invalid_cursor'],
  responses: { 200: { description: 'One page.', schema: resendListSchema(resendDomainSchema, 'ResendDomainList') } },
  async handle({ res, deps, key, query }) {
    const position = await resendPosition(query, (id) => findDomainView(deps.db, key.accountId, id));
    const page = resendPage(await listDomains(deps.db, key.accountId, { position, limit: query.limit + 1 }), query.limit, position);
    sendJson(res, 200, { object: 'list', has_more: page.has_more, data: page.rows.map((d) => toResendDomain(serializeDomain(d))) });
  },
});

export const resendGetDomainRoute = defineRoute({
  ...common,
  method: 'get',
  path: '/resend/domains/:id',
  operationId: 'resendGetDomain',
  summary: 'A domain with its records, as Resend shows one (GET /v1/domains/{id} and its /dns).',
  auth: { kind: 'management', scope: 'domains:read' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'The domain.', schema: resendDomainSchema } },
  async handle({ res, deps, key, params }) {
    const view = await requireDomainView(deps.db, key.accountId, params.id!);
    sendJson(res, 200, toResendDomain(serializeDomain(view), await domainDnsRecords(deps, view)));
  },
});

export const resendDeleteDomainRoute = defineRoute({
  ...common,
  method: 'delete',
  path: '/resend/domains/:id',
  operationId: 'resendDeleteDomain',
  summary: 'DELETE /v1/domains/{id} in Resend\'s terms: only once its senders are deleted.',
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found', 'domain_has_active_senders'],
  responses: { 200: { description: 'Deleted.', schema: z.object({ object: z.literal('domain'), id: z.string(), deleted: z.literal(true) }).meta({ id: 'ResendDeletedDomain' }) } },
  async handle({ res, deps, key, params }) {
    await deleteOrRefuse(deps.db, key.accountId, params.id!, deps.now());
    sendJson(res, 200, { object: 'domain', id: params.id!, deleted: true });
  },
});

export const resendVerifyDomainRoute = defineRoute({
  ...common,
  method: 'post',
  path: '/resend/domains/:id/verify',
  operationId: 'resendVerifyDomain',
  summary: "Resend's verify: POST /v1/domains/{id}/check-dns, run before the answer.",
  auth: { kind: 'management', scope: 'domains:write' },
  errors: ['domain_not_found'],
  responses: { 200: { description: 'Checked.', schema: z.object({ object: z.literal('domain'), id: z.string() }).meta({ id: 'ResendDomainRef' }) } },
  async handle({ res, deps, key, params }) {
    const domain = await requireDomain(deps.db, key.accountId, params.id!);
    if (!(await checkDomainDns(deps.db, deps.dns, deps.config.returnPath, deps.config.encryptionKey, domain, deps.now))) throw domainNotFound();
    sendJson(res, 200, { object: 'domain', id: domain.id });
  },
});
