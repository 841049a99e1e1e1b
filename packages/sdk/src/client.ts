import { OPERATIONS } from './operations';
import type { components, operations } from './schema';

export type OperationId = keyof typeof OPERATIONS;
type Operation<K extends OperationId> = operations[K];
type ParametersOf<K extends OperationId> = Operation<K> extends { parameters: infer P } ? P : never;
type Slot<K extends OperationId, S extends 'path' | 'query'> = ParametersOf<K> extends { [key in S]?: infer V } ? V : never;
type RequestBodyOf<K extends OperationId> = Operation<K> extends { requestBody?: infer R } ? NonNullable<R> : never;
type BodyOf<K extends OperationId> = [RequestBodyOf<K>] extends [never] ? never : RequestBodyOf<K> extends { content: { 'application/json': infer B } } ? B : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** What an operation answers on success: its JSON body, the text of another body, or undefined for none (204). */
export type Result<K extends OperationId> = {
  [S in keyof Operation<K>['responses'] & SuccessStatus]: Operation<K>['responses'][S] extends { content: { 'application/json': infer R } }
    ? R
    : Operation<K>['responses'][S] extends { content: object }
      ? string
      : undefined;
}[keyof Operation<K>['responses'] & SuccessStatus];

/** The request of an operation: its path parameters, query and body as the document types them. */
export type Input<K extends OperationId> = ([Slot<K, 'path'>] extends [never | undefined] ? object : { path: Slot<K, 'path'> }) &
  ([Slot<K, 'query'>] extends [never | undefined] ? object : { query?: Slot<K, 'query'> }) &
  ([BodyOf<K>] extends [never] ? object : { body: BodyOf<K> }) & {
    /** Sent as Idempotency-Key on operations that take one; a random UUID when omitted, kept across retries. */
    idempotencyKey?: string;
  };

export type ErrorBody = components['schemas']['Error']['error'];

/** An error answer of the API (docs/api-decisions.md, "Errors"), with its body as the API sent it. */
export class MailerApiError extends Error {
  override readonly name = 'MailerApiError';
  readonly code: string;
  readonly details: ErrorBody['details'];

  constructor(
    readonly status: number,
    readonly body: { error: ErrorBody },
    readonly requestId: string | null,
    /** Seconds, from Retry-After, when the API said when to come back. */
    readonly retryAfter: number | null,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
    this.code = body.error.code;
    this.details = body.error.details;
  }
}

export interface MailerClientOptions {
  /** Where the API is, e.g. `https://mail.example.com`. */
  baseUrl: string;
  /** A sending key (`svc_live_…`) for email operations, a management key (`mgmt_live_…`) for the others. */
  apiKey: string;
  /** Retries of a 429 or 503 answer, each after its Retry-After; 2 unless given. */
  maxRetries?: number;
  /** A Retry-After longer than this (seconds; 60 unless given) is not waited for: the error is thrown instead. */
  maxRetryAfter?: number;
  fetch?: typeof fetch;
}

const RETRIED = new Set([429, 503]);

/** The body as its Content-Type says: JSON, text, or undefined when there is none. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  return /json/i.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
}

/** An error answer's body; one that is not the API's own (a proxy's page, say) is given the same shape. */
function errorBody(status: number, body: unknown): { error: ErrorBody } {
  const error = (body as { error?: ErrorBody } | undefined)?.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') return { error };
  return { error: { code: `http_${status}`, message: typeof body === 'string' ? body.slice(0, 256) : `HTTP ${status}` } };
}

function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * A client of every operation of the API, by its operationId (`client.call('getEmail', { path: { id } })`);
 * `emails`, `domains`, `senders`, `suppressions` and `webhooks` name the common ones.
 */
export class MailerClient {
  private readonly options: Required<Omit<MailerClientOptions, 'fetch'>> & { fetch: typeof fetch };

  constructor(options: MailerClientOptions) {
    this.options = { maxRetries: 2, maxRetryAfter: 60, fetch: globalThis.fetch, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  }

  async call<K extends OperationId>(operationId: K, ...[input]: object extends Input<K> ? [Input<K>?] : [Input<K>]): Promise<Result<K>> {
    const operation: { method: string; path: string; idempotencyKey?: true } = OPERATIONS[operationId];
    const { path: pathParams, query, body, idempotencyKey } = (input ?? {}) as {
      path?: Record<string, string>;
      query?: Record<string, string | number | undefined>;
      body?: unknown;
      idempotencyKey?: string;
    };
    const url = new URL(this.options.baseUrl + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams?.[name] ?? '')));
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json' };
    if (operation.idempotencyKey) headers['Idempotency-Key'] = idempotencyKey ?? globalThis.crypto.randomUUID();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const init = { method: operation.method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
    for (let attempt = 0; ; attempt++) {
      const response = await this.options.fetch(url, init);
      if (response.ok) return (await readBody(response)) as Result<K>;
      const retryAfter = retryAfterSeconds(response);
      if (RETRIED.has(response.status) && retryAfter !== null && retryAfter <= this.options.maxRetryAfter && attempt < this.options.maxRetries) {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        continue;
      }
      throw new MailerApiError(response.status, errorBody(response.status, await readBody(response)), response.headers.get('x-request-id'), retryAfter);
    }
  }

  readonly emails = {
    send: (body: Input<'sendEmail'>['body'], options: { idempotencyKey?: string } = {}) => this.call('sendEmail', { body, ...options }),
    /** Up to 100 messages under one Idempotency-Key, all accepted or none. */
    sendBatch: (body: Input<'sendEmailBatch'>['body'], options: { idempotencyKey?: string } = {}) => this.call('sendEmailBatch', { body, ...options }),
    list: (query?: Input<'listEmails'>['query']) => this.call('listEmails', { query }),
    get: (id: string) => this.call('getEmail', { path: { id } }),
    cancel: (id: string) => this.call('cancelEmail', { path: { id }, body: {} }),
  };

  readonly domains = {
    create: (body: Input<'createDomain'>['body']) => this.call('createDomain', { body }),
    list: (query?: Input<'listDomains'>['query']) => this.call('listDomains', { query }),
    get: (id: string) => this.call('getDomain', { path: { id } }),
    dnsRecords: (id: string) => this.call('getDomainDns', { path: { id } }),
    checkDns: (id: string) => this.call('checkDomainDns', { path: { id }, body: {} }),
    /** New pending DKIM keys; signing switches to them once checkDns verifies their records. */
    rotateDkim: (id: string) => this.call('rotateDkimKeys', { path: { id }, body: {} }),
    delete: (id: string) => this.call('deleteDomain', { path: { id } }),
  };

  readonly senders = {
    create: (domainId: string, body: Input<'createSender'>['body']) => this.call('createSender', { path: { id: domainId }, body }),
    list: (domainId: string, query?: Input<'listSenders'>['query']) => this.call('listSenders', { path: { id: domainId }, query }),
    get: (id: string) => this.call('getSender', { path: { id } }),
    update: (id: string, body: Input<'updateSender'>['body']) => this.call('updateSender', { path: { id }, body }),
    delete: (id: string) => this.call('deleteSender', { path: { id } }),
  };

  readonly suppressions = {
    create: (email: string) => this.call('createSuppression', { body: { email } }),
    list: (query?: Input<'listSuppressions'>['query']) => this.call('listSuppressions', { query }),
    get: (email: string) => this.call('getSuppression', { path: { email } }),
    delete: (email: string) => this.call('deleteSuppression', { path: { email } }),
  };

  readonly webhooks = {
    create: (body: Input<'createWebhook'>['body']) => this.call('createWebhook', { body }),
    list: (query?: Input<'listWebhooks'>['query']) => this.call('listWebhooks', { query }),
    get: (id: string) => this.call('getWebhook', { path: { id } }),
    update: (id: string, body: Input<'updateWebhook'>['body']) => this.call('updateWebhook', { path: { id }, body }),
    delete: (id: string) => this.call('deleteWebhook', { path: { id } }),
    rotateSecret: (id: string) => this.call('rotateWebhookSecret', { path: { id }, body: {} }),
    deliveries: (id: string, query?: Input<'listWebhookDeliveries'>['query']) => this.call('listWebhookDeliveries', { path: { id }, query }),
  };
}
