import { z } from 'zod';
import type { Request } from 'express';
import { AppError, type ErrorCode } from '@mailer/domain';
import type { ApiDialect } from './dialect';
import { ERROR_STATUS } from './error-status';
import type { ResponseHeader, RouteDefinition } from './route';

/** The error body of every route (docs/api-decisions.md, "Errors"). */
const errorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable and machine-readable; each response lists the codes it can carry.' }),
      message: z.string().meta({ description: 'For people; may change.' }),
      details: z
        .array(z.object({ path: z.string().meta({ description: 'Where, in the request\'s own terms: `to[1]`, `content.html`, `scope`.' }), message: z.string() }))
        .optional(),
    }),
  })
  .meta({ id: 'Error' });

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** Every header a response can declare, as components.headers. */
const HEADERS: Record<ResponseHeader | 'X-Request-Id' | 'Retry-After' | 'WWW-Authenticate', object> = {
  'X-Request-Id': { description: 'The request\'s id (the client\'s own when it sent a well-formed one).', required: true, schema: { type: 'string' } },
  Location: { description: 'The path of the created resource.', required: true, schema: { type: 'string' } },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  'RateLimit-Limit': integerHeader('Recipients the tightest plan window allows.'),
  'RateLimit-Remaining': integerHeader('Recipients left in that window.'),
  'RateLimit-Reset': integerHeader('Seconds until that window frees capacity.'),
  'Retry-After': { ...integerHeader('Seconds to wait before retrying.'), required: true },
  'WWW-Authenticate': { description: '`Bearer realm="mailer"`.', required: true, schema: { type: 'string' } },
};

/** The headers an error code always carries; a status documents those of its codes. */
const CODE_HEADERS: Partial<Record<ErrorCode, (keyof typeof HEADERS)[]>> = {
  unauthorized: ['WWW-Authenticate'],
  rate_limit_exceeded: ['Retry-After'],
  active_delivery_limit_exceeded: ['Retry-After'],
  service_unavailable: ['Retry-After'],
};

const TAGS = [
  { name: 'emails', description: 'Send messages and follow their delivery. Sending key.' },
  { name: 'domains', description: 'Sending domains and their DNS records. Management key with `domains:*` scopes.' },
  { name: 'senders', description: 'Sender identities under a domain. Management key with `senders:*` scopes.' },
  { name: 'suppressions', description: 'Addresses the account never sends to. Management key with `suppressions:*` scopes.' },
  { name: 'templates', description: 'Mustache templates that messages are rendered from at intake, with their versions. Management key with `templates:*` scopes.' },
  {
    name: 'inbound',
    description:
      'Mail received for your domains: routes (an address or `*@host`) and the messages they received, with authentication results, ' +
      'raw MIME and attachments; each also an `email.received` webhook event. Management key with `inbound:*` scopes.',
  },
  { name: 'account', description: "The account's plan, usage and sending state. Any of its keys." },
  { name: 'operations', description: 'Health, metrics and this reference.' },
  {
    name: 'unsubscribe',
    description:
      "The links of the List-Unsubscribe header (docs/api-decisions.md, \"Unsubscribe\"), for recipients' mail clients and browsers: " +
      'no key, the link token is the credential.',
  },
  {
    name: 'tracking',
    description:
      'The open pixel and the tracked links of messages that track opens or clicks (docs/api-decisions.md, "Opens and clicks"), for ' +
      "recipients' mail clients, on each domain's tracking host: no key, the link token is the credential.",
  },
  {
    name: 'resend',
    description:
      "Resend's HTTP API over the same operations as /v1 (docs/api-decisions.md, \"Resend and Postmark adapters\"): point Resend's SDK at `<this API>/resend`. " +
      'Errors as `{statusCode, name, message}`.',
  },
  {
    name: 'postmark',
    description:
      "Postmark's server API over the same operations as /v1: point Postmark's client at `<this API>/postmark`. The key goes in " +
      'X-Postmark-Server-Token; errors as `{ErrorCode, Message}`.',
  },
];

const COMPONENT_REF = '#/components/schemas/';

/**
 * A zod schema as JSON Schema. Schemas given a `meta({ id })` become named components
 * (collected into `components`) and are referenced wherever they appear, at the root too.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, unknown>): unknown {
  const generated = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // An integer query parameter is validated as its text (`^\d+$`) and documented as the integer it is.
    override: ({ jsonSchema: out }) => {
      if (out.type === 'integer') delete out.pattern;
      // A schema that declares its own anyOf (an address or an array of them) is documented by it alone.
      if (out.anyOf && out.type === 'array') for (const key of ['type', 'items', 'minItems', 'maxItems'] as const) delete out[key];
    },
  });
  const { $schema: _, $defs, ...rest } = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', `"${COMPONENT_REF}`)) as Record<string, unknown>;
  Object.assign(components, $defs);
  return rest;
}

/** Express `:id` -> OpenAPI `{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function security(route: RouteDefinition) {
  if (route.dialect && route.auth.kind !== 'none') return [{ [route.dialect.securityScheme]: route.auth.kind === 'management' ? [route.auth.scope] : [] }];
  switch (route.auth.kind) {
    case 'none':
      return [];
    case 'operator':
      return [{ operatorToken: [] }, { operatorBasic: [] }];
    case 'sending':
      return [{ sendingKey: [] }];
    case 'management':
      return [{ managementKey: [route.auth.scope] }];
    case 'account':
      return [{ sendingKey: [] }, { managementKey: [] }];
  }
}

/**
 * Every code a route can answer: those of its auth kind, of a query and of a body, its own,
 * and those of any request (a body over 16 MiB, an unexpected failure).
 */
export function errorCodes(route: RouteDefinition): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.auth.kind !== 'none') codes.push('unauthorized');
  if (route.auth.kind === 'operator') codes.push('operator_token_not_configured');
  if (route.auth.kind === 'sending' || route.auth.kind === 'management') codes.push('wrong_key_type');
  if (route.auth.kind === 'sending' || route.auth.kind === 'management' || route.auth.kind === 'account') codes.push('service_unavailable');
  if (route.auth.kind === 'management') codes.push('insufficient_scope');
  if (route.query) codes.push('invalid_query');
  if (route.query instanceof z.ZodObject && 'cursor' in route.query.shape) codes.push('invalid_cursor');
  if (route.body) codes.push('invalid_json', 'unsupported_media_type', 'validation_error', 'service_unavailable');
  codes.push(...(route.errors ?? []), 'payload_too_large', 'internal_error');
  return [...new Set(codes)];
}

function headerRefs(names: Iterable<keyof typeof HEADERS>) {
  return Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function errorResponses(route: RouteDefinition, components: Record<string, unknown>) {
  if (route.dialect) return dialectErrorResponses(route, route.dialect, components);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(route)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const errorRef = jsonSchema(errorSchema, 'output', components);
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = new Set(codes.flatMap((code) => [...(CODE_HEADERS[code] ?? []), ...(route.errorHeaders?.[code] ?? [])]));
    responses[status] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      headers: headerRefs(headers),
      content: {
        'application/json': {
          schema: { allOf: [errorRef, { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', enum: codes } } } } }] },
        },
      },
    };
  }
  return responses;
}

/** An adapter's errors: each status its dialect gives the route's codes, with that API's error body. */
function dialectErrorResponses(route: RouteDefinition, dialect: ApiDialect, components: Record<string, unknown>) {
  const byStatus = new Map<number, ErrorCode[]>();
  const sample = { get: () => undefined } as unknown as Request;
  for (const code of errorCodes(route)) {
    const { status } = dialect.render(new AppError(code, ''), sample);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const errorRef = jsonSchema(dialect.errorSchema, 'output', components);
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    // WWW-Authenticate is /v1's: an adapter's 401 also answers a key of the wrong type, without it.
    const headers = new Set(codes.flatMap((code) => [...(CODE_HEADERS[code] ?? []), ...(route.errorHeaders?.[code] ?? [])]).filter((h) => h !== 'WWW-Authenticate'));
    responses[status] = { description: codes.map((code) => `\`${code}\``).join(', '), headers: headerRefs(headers), content: { 'application/json': { schema: errorRef } } };
  }
  return responses;
}

function operation(route: RouteDefinition, components: Record<string, unknown>) {
  const parameters: unknown[] = [];
  for (const name of route.path.match(/:([A-Za-z_]+)/g) ?? []) {
    parameters.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const schema = jsonSchema(route.query, 'input', components) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    parameters.push({ name, in: 'header', required: header.required, description: header.description, schema: { type: 'string' } });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const content = response.schema
      ? { 'application/json': { schema: jsonSchema(response.schema, 'output', components) } }
      : response.contentType
        ? { [response.contentType]: { schema: { type: 'string' } } }
        : undefined;
    responses[status] = { description: response.description, headers: headerRefs(response.headers ?? []), ...(content ? { content } : {}) };
  }
  Object.assign(responses, errorResponses(route, components));
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: security(route),
    ...(parameters.length ? { parameters } : {}),
    // validateBody validates a missing body as `{}`: the body is optional exactly when `{}` passes.
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.safeParse({}).success,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input', components), ...(route.example === undefined ? {} : { example: route.example }) } },
          },
        }
      : route.unreadBody
        ? {
            requestBody: {
              required: false,
              description: route.unreadBody.description,
              content: { [route.unreadBody.contentType]: { schema: { type: 'string' }, example: route.unreadBody.example } },
            },
          }
        : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas that serve requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], description: string) {
  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route, components) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Mailer API', version: '1.0.0', description, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'The API that serves this document.' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        sendingKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'One of the account\'s sending keys; email routes only. `svc_live_…` sends mail; `svc_test_…` (test mode) sends test ' +
            'messages, whose outcomes are simulated by the recipient\'s local part and which count no usage. Each key sees only its own ' +
            'mode\'s messages (`test` on each).',
        },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN as a Bearer token.' },
        operatorBasic: { type: 'http', scheme: 'basic', description: 'OPERATOR_TOKEN as the HTTP Basic password (any user name), for Prometheus and browsers.' },
        managementKey: { type: 'http', scheme: 'bearer', description: 'A management key, `mgmt_live_…`, with the scopes the route lists.' },
        resendKey: { type: 'http', scheme: 'bearer', description: 'As Resend takes its key: a sending key on email routes, a management key on domain routes.' },
        postmarkServerToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Postmark-Server-Token',
          description: 'A sending key on email and message routes; a management key with suppressions:* on bounce and suppression routes.',
        },
      },
      headers: HEADERS,
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
    paths,
  };
}
