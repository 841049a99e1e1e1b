import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Test } from 'supertest';
import type request from 'supertest';
import { apiRoutes } from '../routes';
import { openApiDocument } from '../routes/system/get-openapi';

/**
 * Every request the API tests send through `startTestApi().http` and every answer, checked
 * against /openapi.json as an outside validating proxy would (docs/api-decisions.md, "The
 * document matches the service"): an answer must be declared for its operation and status,
 * with its body and headers as declared; a request the document calls invalid must not
 * succeed; an operation the document does not list may only be answered 404 or 405. A
 * violation fails the request's await.
 */

interface Parameter { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: object }
interface HeaderObject { required?: boolean; schema: object }
interface ResponseObject { headers?: Record<string, { $ref: string }>; content?: Record<string, { schema: object }> }
interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: object }> };
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, HeaderObject>; schemas: object; securitySchemes: Record<string, { type: string; scheme?: string; name?: string }> };
}

/** The routes of the operator dashboard (Bull Board) and of the operator console, browser UIs outside the API's document. */
const OUTSIDE_THE_DOCUMENT = /^\/(?:admin\/queues|console)(?:\/|$)/;

export const apiDocument = openApiDocument(apiRoutes) as unknown as Document;

// Every `#/components/…` reference, resolved in a schema of its own holding the components.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const DOC_ID = 'openapi.json';
ajv.addSchema({ $id: DOC_ID, components: apiDocument.components });
const compiled = new Map<object, ValidateFunction>();
function validator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as object);
    compiled.set(schema, validate);
  }
  return validate;
}
const problems = (validate: ValidateFunction) => ajv.errorsText(validate.errors);

/** Document paths as patterns, literal ones first (`/v1/emails/batch` before `/v1/emails/{id}`). */
const PATHS = Object.keys(apiDocument.paths)
  .map((path) => ({ path, params: (path.match(/\{/g) ?? []).length, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
  .sort((a, b) => a.params - b.params);

/** The documented operation `method` on `pathname`, with its path template. */
export function findOperation(method: string, pathname: string): { path: string; operation: Operation } | undefined {
  for (const { path, pattern } of PATHS) {
    const operation = pattern.test(pathname) ? apiDocument.paths[path]![method.toLowerCase()] : undefined;
    if (operation) return { path, operation };
  }
  return undefined;
}

export interface Exchange {
  method: string;
  url: string;
  /** Request headers by lower-case name. */
  headers: Record<string, string | undefined>;
  /** The body as sent: parsed JSON, text, or undefined when none was sent. */
  body: unknown;
  status: number;
  responseHeaders: Record<string, string | undefined>;
  responseBody: unknown;
  responseText: string | undefined;
}

const typed = (schema: { type?: string }, value: string): unknown => (schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value);

/** Why the document calls the request invalid (an empty list when it is valid). */
function requestProblems(operation: Operation, exchange: Exchange, query: URLSearchParams): string[] {
  const found: string[] = [];
  if (operation.security.length > 0) {
    const scheme = /^(\w+)\s/.exec(exchange.headers.authorization ?? '')?.[1]?.toLowerCase();
    const declared = operation.security.flatMap((s) => Object.keys(s).map((name) => apiDocument.components.securitySchemes[name]!));
    // An API key in a header (Postmark's X-Postmark-Server-Token) is present or not; an HTTP scheme is named in Authorization.
    const presented = declared.some((d) => (d.type === 'apiKey' ? exchange.headers[d.name!.toLowerCase()] !== undefined : d.scheme === scheme));
    if (!presented) found.push(`no ${declared.map((d) => d.scheme ?? d.name).join(' or ')} credentials`);
  }
  const parameters = operation.parameters ?? [];
  for (const parameter of parameters) {
    const values = parameter.in === 'query' ? query.getAll(parameter.name) : parameter.in === 'header' ? [exchange.headers[parameter.name.toLowerCase()]].filter((v) => v !== undefined) : [];
    if (parameter.in === 'path') continue;
    if (values.length === 0) {
      if (parameter.required) found.push(`${parameter.in} parameter ${parameter.name} is missing`);
      continue;
    }
    const validate = validator(parameter.schema);
    if (values.length > 1 || !validate(typed(parameter.schema, values[0]!))) found.push(`${parameter.in} parameter ${parameter.name}=${values.join(',')}`);
  }
  for (const name of new Set(query.keys())) {
    if (!parameters.some((p) => p.in === 'query' && p.name === name)) found.push(`query parameter ${name} is not documented`);
  }
  const sent = exchange.body !== undefined && exchange.body !== '';
  if (!operation.requestBody) {
    if (sent) found.push('a body, though the operation takes none');
    return found;
  }
  if (!sent) {
    if (operation.requestBody.required) found.push('no body, though one is required');
    return found;
  }
  const json = operation.requestBody.content['application/json'];
  if (!json) {
    // A body the route documents but does not read: its type must be the documented one.
    const type = (exchange.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!operation.requestBody.content[type]) found.push(`a body of type ${exchange.headers['content-type']}`);
    return found;
  }
  if (!/^application\/json\b/i.test(exchange.headers['content-type'] ?? '')) found.push(`a body of type ${exchange.headers['content-type']}`);
  else if (typeof exchange.body === 'string') found.push('a body that is not JSON');
  else {
    const validate = validator(json.schema);
    if (!validate(exchange.body)) found.push(`body: ${problems(validate)}`);
  }
  return found;
}

/** Why the answer does not conform to the document (an empty list when it does). */
function responseProblems(operation: Operation, exchange: Exchange): string[] {
  const declared = operation.responses[String(exchange.status)];
  if (!declared) return [`status ${exchange.status} is not declared: ${(exchange.responseText ?? '').slice(0, 300)}`];
  const found: string[] = [];
  const json = declared.content?.['application/json'];
  if (json) {
    const validate = validator(json.schema);
    if (!validate(exchange.responseBody)) found.push(`body: ${problems(validate)} in ${(exchange.responseText ?? '').slice(0, 300)}`);
  } else if (!declared.content && exchange.responseText) found.push('a body it does not declare');
  for (const [name, ref] of Object.entries(declared.headers ?? {})) {
    const header = apiDocument.components.headers[ref.$ref.split('/').pop()!]!;
    const value = exchange.responseHeaders[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) found.push(`lacks the header ${name}`);
      continue;
    }
    if (!validator(header.schema)(typed(header.schema as { type?: string }, value))) found.push(`header ${name}: ${value}`);
  }
  return found;
}

/** What is wrong with one request and its answer, as a message; undefined when both conform. */
export function exchangeViolation(exchange: Exchange): string | undefined {
  const url = new URL(exchange.url, 'http://api.test');
  const what = `${exchange.method} ${url.pathname}${url.search}`;
  if (OUTSIDE_THE_DOCUMENT.test(url.pathname)) return undefined;
  const found = findOperation(exchange.method, url.pathname);
  if (!found) {
    // An answer to HEAD has no body to show its code.
    const code = exchange.method === 'HEAD' ? undefined : (exchange.responseBody as { error?: { code?: string } } | undefined)?.error?.code;
    const refused = (exchange.status === 404 && (code ?? 'not_found') === 'not_found') || (exchange.status === 405 && (code ?? 'method_not_allowed') === 'method_not_allowed');
    return refused ? undefined : `${what}: not in the document, yet answered ${exchange.status}`;
  }
  const { operation } = found;
  const invalid = requestProblems(operation, exchange, url.searchParams);
  const wrong = responseProblems(operation, exchange);
  if (invalid.length > 0 && exchange.status < 400) wrong.unshift(`answered ${exchange.status} to a request the document calls invalid (${invalid.join('; ')})`);
  return wrong.length > 0 ? `${operation.operationId}, ${what} → ${exchange.status}: ${wrong.join('; ')}` : undefined;
}

/** The request superagent sent, and the body it was given (`_data`: an object, a string or a Buffer). */
type SentTest = Test & { _data?: unknown };

function sentBody(test: SentTest, contentType: string | undefined): unknown {
  const data = test._data;
  if (data === undefined || data === null) return undefined;
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : typeof data === 'string' ? data : undefined;
  if (text === undefined) return data;
  if (!/json/i.test(contentType ?? '')) return text;
  try {
    return text === '' ? '' : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

type Callback = (error: unknown, res: request.Response) => void;

/** Checks each exchange of `test` when it completes; a violation becomes the request's error. */
function checked(test: SentTest): Test {
  const end = test.end.bind(test);
  test.end = ((callback?: Callback) =>
    end((error: unknown, res: request.Response) => {
      const sent = test.req as { getHeaders?: () => Record<string, unknown> } | undefined;
      if (res && sent?.getHeaders) {
        const headers = Object.fromEntries(Object.entries(sent.getHeaders()).map(([k, v]) => [k.toLowerCase(), v === undefined ? undefined : String(v)]));
        const violation = exchangeViolation({
          method: test.method,
          url: test.url,
          headers,
          body: sentBody(test, headers['content-type']),
          status: res.status,
          responseHeaders: res.headers as Record<string, string | undefined>,
          responseBody: res.body,
          responseText: res.text,
        });
        if (violation) return callback?.(new Error(`OpenAPI violation: ${violation}`), res);
      }
      callback?.(error, res);
    })) as typeof test.end;
  return test;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/** `agent` whose every request is checked against the document. */
export function checkedAgainstDocument(agent: ReturnType<typeof request>): ReturnType<typeof request> {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !METHODS.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => checked((value as (...a: unknown[]) => SentTest).apply(target, args));
    },
  });
}
