import { OPERATIONS } from './operations';
import type { operations } from './schema';
import { send } from './transport';

export type OperationId = keyof typeof OPERATIONS;
type Operation<K extends OperationId> = operations[K];
type ParametersOf<K extends OperationId> = Operation<K> extends { parameters: infer P } ? P : never;
type Slot<K extends OperationId, S extends 'path' | 'query'> = ParametersOf<K> extends { [key in S]?: infer V } ? V : never;
type RequestBodyOf<K extends OperationId> = Operation<K> extends { requestBody?: infer R } ? NonNullable<R> : never;
type BodyOf<K extends OperationId> = [RequestBodyOf<K>] extends [never] ? never : RequestBodyOf<K> extends { content: { 'application/json': infer B } } ? B : never;
/** A body the operation requires, or one it takes optionally (`{}` on actions such as cancelEmail). */
type BodySlot<K extends OperationId> = [BodyOf<K>] extends [never]
  ? object
  : Operation<K> extends { requestBody: object }
    ? { body: BodyOf<K> }
    : { body?: BodyOf<K> };
type SuccessStatus = 200 | 201 | 202 | 204;

/** What an operation answers on success: its JSON body, the text of another body, or undefined for none (204). */
export type Result<K extends OperationId> = {
  [S in keyof Operation<K>['responses'] & SuccessStatus]: Operation<K>['responses'][S] extends { content: { 'application/json': infer R } }
    ? R
    : Operation<K>['responses'][S] extends { content: object }
      ? string
      : undefined;
}[keyof Operation<K>['responses'] & SuccessStatus];

export interface CallOptions {
  /** Sent as Idempotency-Key on operations that take one; a random UUID when omitted, the same on every retry. */
  idempotencyKey?: string;
  /** Cancels the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take; the client's `timeout` unless given. */
  timeout?: number;
}

/** The request of an operation: its path parameters, query and body as the document types them. */
export type Input<K extends OperationId> = ([Slot<K, 'path'>] extends [never | undefined] ? object : { path: Slot<K, 'path'> }) &
  ([Slot<K, 'query'>] extends [never | undefined] ? object : { query?: Slot<K, 'query'> }) &
  BodySlot<K> &
  CallOptions;

/** The operations that answer a page: `{data: [...], next_cursor}`. */
export type ListOperationId = { [K in OperationId]: Result<K> extends { data: unknown[]; next_cursor: string | null } ? K : never }[OperationId];
/** An item of a list operation's pages. */
export type ItemOf<K extends ListOperationId> = Result<K> extends { data: (infer T)[] } ? T : never;

type InputArgument<K extends OperationId> = object extends Input<K> ? [Input<K>?] : [Input<K>];

export interface MailerClientOptions {
  /** Where the API is, e.g. `https://mail.example.com`. */
  baseUrl: string;
  /** A sending key (`svc_live_…`, or `svc_test_…` for test mode) for email operations, a management key (`mgmt_live_…`) for the others. */
  apiKey: string;
  /** Retries of a 429 or 503 answer, or of a request that got no answer (see the README); 2 unless given. */
  maxRetries?: number;
  /** A Retry-After longer than this (seconds; 60 unless given) is not waited for: the error is thrown instead. */
  maxRetryAfter?: number;
  /** Milliseconds each attempt may take, answer included (30 000 unless given); then `MailerApiError` `timeout`. */
  timeout?: number;
  fetch?: typeof fetch;
}

/** Requests that may be sent again even if an attempt may have reached the API. */
const REPEATABLE_METHODS = new Set(['GET', 'DELETE']);

/**
 * A client of every operation of the API, by its operationId (`client.call('getEmail', { path: { id } })`);
 * `emails`, `domains`, `senders`, `suppressions`, `webhooks`, `templates`, `inbound` and `account` name the common ones, and
 * `paginate` walks the pages of any list.
 */
export class MailerClient {
  private readonly options: Required<Omit<MailerClientOptions, 'fetch'>> & { fetch: typeof fetch };

  constructor(options: MailerClientOptions) {
    this.options = { maxRetries: 2, maxRetryAfter: 60, timeout: 30_000, fetch: globalThis.fetch, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  }

  async call<K extends OperationId>(operationId: K, ...[input]: InputArgument<K>): Promise<Result<K>> {
    const operation: { method: string; path: string; idempotencyKey?: true } = OPERATIONS[operationId];
    const { path: pathParams, query, body, idempotencyKey, signal, timeout } = (input ?? {}) as CallOptions & {
      path?: Record<string, string>;
      query?: Record<string, string | number | undefined>;
      body?: unknown;
    };
    const url = new URL(this.options.baseUrl + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams?.[name] ?? '')));
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json' };
    // Made once, so that every retry of this call is the same request to the API.
    if (operation.idempotencyKey) headers['Idempotency-Key'] = idempotencyKey ?? globalThis.crypto.randomUUID();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const init = { method: operation.method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const repeatable = REPEATABLE_METHODS.has(operation.method) || operation.idempotencyKey === true;
    return (await send({ url, init, repeatable, signal }, { ...this.options, timeout: timeout ?? this.options.timeout })) as Result<K>;
  }

  /** Every item of a list, page after page (each page one call, with its retries): `for await (const e of client.paginate('listEmails'))`. */
  async *paginate<K extends ListOperationId>(operationId: K, ...[input]: InputArgument<K>): AsyncGenerator<ItemOf<K>> {
    const given = (input ?? {}) as { query?: Record<string, unknown> };
    const page = this.call as (id: K, input: unknown) => Promise<{ data: ItemOf<K>[]; next_cursor: string | null }>;
    let cursor: string | undefined;
    do {
      const answer = await page.call(this, operationId, { ...given, query: { ...given.query, ...(cursor === undefined ? {} : { cursor }) } });
      yield* answer.data;
      cursor = answer.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  readonly account = {
    /** The plan, the usage in each plan window and the sending state; any key of the account. */
    get: () => this.call('getAccount'),
  };

  readonly emails = {
    send: (body: Input<'sendEmail'>['body'], options: { idempotencyKey?: string } = {}) => this.call('sendEmail', { body, ...options }),
    /** Up to 100 messages under one Idempotency-Key, all accepted or none. */
    sendBatch: (body: Input<'sendEmailBatch'>['body'], options: { idempotencyKey?: string } = {}) => this.call('sendEmailBatch', { body, ...options }),
    list: (query?: Input<'listEmails'>['query']) => this.call('listEmails', { query }),
    /** Every email matching `query`, page after page. */
    listAll: (query?: Input<'listEmails'>['query']) => this.paginate('listEmails', { query }),
    get: (id: string) => this.call('getEmail', { path: { id } }),
    cancel: (id: string) => this.call('cancelEmail', { path: { id }, body: {} }),
    /** A new scheduled_at, later or earlier, while no delivery has started. */
    reschedule: (id: string, body: Input<'rescheduleEmail'>['body']) => this.call('rescheduleEmail', { path: { id }, body }),
  };

  readonly domains = {
    create: (body: Input<'createDomain'>['body']) => this.call('createDomain', { body }),
    list: (query?: Input<'listDomains'>['query']) => this.call('listDomains', { query }),
    listAll: (query?: Input<'listDomains'>['query']) => this.paginate('listDomains', { query }),
    get: (id: string) => this.call('getDomain', { path: { id } }),
    dnsRecords: (id: string) => this.call('getDomainDns', { path: { id } }),
    checkDns: (id: string) => this.call('checkDomainDns', { path: { id }, body: {} }),
    /** Each of Gmail's, Yahoo's and Microsoft's published requirements: `pass`, `fail` or `unknown`, with the reason. */
    compliance: (id: string) => this.call('getDomainCompliance', { path: { id } }),
    /** New pending DKIM keys; signing switches to them once checkDns verifies their records. */
    rotateDkim: (id: string) => this.call('rotateDkimKeys', { path: { id }, body: {} }),
    /** Inbound mail on or off (`{receiving, receiving_subdomain}`). */
    update: (id: string, body: Input<'updateDomain'>['body']) => this.call('updateDomain', { path: { id }, body }),
    delete: (id: string) => this.call('deleteDomain', { path: { id } }),
  };

  readonly senders = {
    create: (domainId: string, body: Input<'createSender'>['body']) => this.call('createSender', { path: { id: domainId }, body }),
    list: (domainId: string, query?: Input<'listSenders'>['query']) => this.call('listSenders', { path: { id: domainId }, query }),
    listAll: (domainId: string, query?: Input<'listSenders'>['query']) => this.paginate('listSenders', { path: { id: domainId }, query }),
    get: (id: string) => this.call('getSender', { path: { id } }),
    update: (id: string, body: Input<'updateSender'>['body']) => this.call('updateSender', { path: { id }, body }),
    delete: (id: string) => this.call('deleteSender', { path: { id } }),
  };

  readonly suppressions = {
    create: (email: string) => this.call('createSuppression', { body: { email } }),
    list: (query?: Input<'listSuppressions'>['query']) => this.call('listSuppressions', { query }),
    listAll: (query?: Input<'listSuppressions'>['query']) => this.paginate('listSuppressions', { query }),
    get: (email: string) => this.call('getSuppression', { path: { email } }),
    delete: (email: string) => this.call('deleteSuppression', { path: { email } }),
  };

  readonly webhooks = {
    create: (body: Input<'createWebhook'>['body']) => this.call('createWebhook', { body }),
    list: (query?: Input<'listWebhooks'>['query']) => this.call('listWebhooks', { query }),
    listAll: (query?: Input<'listWebhooks'>['query']) => this.paginate('listWebhooks', { query }),
    get: (id: string) => this.call('getWebhook', { path: { id } }),
    update: (id: string, body: Input<'updateWebhook'>['body']) => this.call('updateWebhook', { path: { id }, body }),
    delete: (id: string) => this.call('deleteWebhook', { path: { id } }),
    rotateSecret: (id: string) => this.call('rotateWebhookSecret', { path: { id }, body: {} }),
    deliveries: (id: string, query?: Input<'listWebhookDeliveries'>['query']) => this.call('listWebhookDeliveries', { path: { id }, query }),
    allDeliveries: (id: string, query?: Input<'listWebhookDeliveries'>['query']) => this.paginate('listWebhookDeliveries', { path: { id }, query }),
  };

  /** Templates, by id (`tpl_…`) or alias. */
  readonly templates = {
    create: (body: Input<'createTemplate'>['body']) => this.call('createTemplate', { body }),
    list: (query?: Input<'listTemplates'>['query']) => this.call('listTemplates', { query }),
    listAll: (query?: Input<'listTemplates'>['query']) => this.paginate('listTemplates', { query }),
    get: (id: string) => this.call('getTemplate', { path: { id } }),
    update: (id: string, body: Input<'updateTemplate'>['body']) => this.call('updateTemplate', { path: { id }, body }),
    delete: (id: string) => this.call('deleteTemplate', { path: { id } }),
    versions: (id: string, query?: Input<'listTemplateVersions'>['query']) => this.call('listTemplateVersions', { path: { id }, query }),
    render: (id: string, body: Input<'renderTemplate'>['body']) => this.call('renderTemplate', { path: { id }, body }),
  };

  /** Received mail: routes, and the messages they received (docs: "Receiving mail"). */
  readonly inbound = {
    routes: {
      create: (body: Input<'createInboundRoute'>['body']) => this.call('createInboundRoute', { body }),
      list: (query?: Input<'listInboundRoutes'>['query']) => this.call('listInboundRoutes', { query }),
      get: (id: string) => this.call('getInboundRoute', { path: { id } }),
      update: (id: string, body: Input<'updateInboundRoute'>['body']) => this.call('updateInboundRoute', { path: { id }, body }),
      delete: (id: string) => this.call('deleteInboundRoute', { path: { id } }),
    },
    emails: {
      list: (query?: Input<'listInboundEmails'>['query']) => this.call('listInboundEmails', { query }),
      listAll: (query?: Input<'listInboundEmails'>['query']) => this.paginate('listInboundEmails', { query }),
      get: (id: string) => this.call('getInboundEmail', { path: { id } }),
      /** The raw message as text; for its exact bytes, fetch `/v1/inbound/emails/{id}/raw` yourself. */
      raw: (id: string) => this.call('getInboundEmailRaw', { path: { id } }),
      /** An attachment, as text; for binary attachments fetch its URL yourself. */
      attachment: (id: string, attachmentId: string) => this.call('getInboundAttachment', { path: { id, attachment_id: attachmentId } }),
    },
  };
}
