import type { Request, Response } from 'express';
import { z } from 'zod';
import { AppError, validationError, type ErrorCode } from '@mailer/domain';
import type { ApiDependencies } from '../container';
import type { AuthenticatedKey, RouteAuth } from './auth';
import type { ApiDialect } from './dialect';
import { illFormedStrings } from './well-formed-json';
import { zodDetails } from './zod-details';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** Response headers the document declares (components.headers in /openapi.json). */
export type ResponseHeader =
  | 'Location'
  | 'Idempotent-Replayed'
  | 'RateLimit-Limit'
  | 'RateLimit-Remaining'
  | 'RateLimit-Reset';

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** The media type of a body that is not JSON. */
  contentType?: string;
  headers?: ResponseHeader[];
}

/**
 * One endpoint: what it needs of the caller, the schemas that validate its input (and
 * document it in /openapi.json), and its handler. Handlers receive the body through
 * `body()` so that they can look up the route's resource first, as the contract orders
 * the checks: authentication, key type, scope, resource, then body.
 */
export interface RouteDefinition<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** Express-style path, e.g. `/v1/domains/:id`. */
  path: string;
  /** A camelCase verb-noun, unique across routes: the SDK's method name. */
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  /** Extra request headers to document (e.g. Idempotency-Key). */
  headers?: Record<string, { description: string; required: boolean }>;
  query?: Q;
  body?: B;
  /**
   * A body of another type than JSON that callers send and the route never reads (the
   * one-click unsubscribe's form body): documented only, left unread as any body of a route
   * without `body` is.
   */
  unreadBody?: { contentType: string; description: string; example: string };
  /** A request body as an integrator would send it, shown in the reference. */
  example?: unknown;
  responses: Record<number, RouteResponse>;
  /**
   * The error codes of this route's own (its lookups, conflicts, limits); those its auth, query
   * and body bring are derived. Each may name headers its answers carry.
   */
  errors?: ErrorCode[];
  errorHeaders?: Partial<Record<ErrorCode, ResponseHeader[]>>;
  /** An adapter's route: the key and the errors as that API has them (absent: /v1's). */
  dialect?: ApiDialect;
  handle(ctx: RouteContext<z.infer<Q>, z.infer<B>>): Promise<void>;
}

export interface RouteContext<Q, B> {
  req: Request;
  res: Response;
  deps: ApiDependencies;
  /** Present on every route whose auth is `sending` or `management`. */
  key: AuthenticatedKey;
  params: Record<string, string>;
  query: Q;
  /** Parses and validates the JSON body; throws the contract's 415 / 400 / 422. */
  body(): B;
  /** The JSON body as sent, before validation (parsed once for both). */
  json(): unknown;
}

export function defineRoute<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  route: RouteDefinition<Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export function parseQuery<Q extends z.ZodType>(schema: Q | undefined, query: unknown): z.infer<Q> {
  if (!schema) return {} as z.infer<Q>;
  // Query strings decode malformed UTF-8 to U+FFFD, but `%00` is a NUL: refused before any rule or statement sees it.
  const unstorable = illFormedStrings(query);
  if (!unstorable.isEmpty) throw new AppError('invalid_query', 'A query parameter is invalid.', { details: unstorable.toDetails() });
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    throw new AppError('invalid_query', 'A query parameter is invalid.', { details: zodDetails(parsed.error) });
  }
  return parsed.data;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

// Malformed UTF-8 is refused, never replaced with U+FFFD. A BOM is kept, and JSON.parse refuses it.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// UTF-8 cannot encode a surrogate, and a JSON string cannot hold a raw NUL, so a lone
// surrogate or a NUL in a parsed body comes from an escape: bodies without one need no walk.
const UNSTORABLE_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;

/**
 * The raw body read by the route runner, parsed: 415 unless JSON, 400 when not UTF-8 or
 * unparseable, 422 when a string in it is not text the service can store; undefined when empty.
 */
export function readJsonBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  if (!JSON_TYPE.test(contentType ?? '')) {
    throw new AppError('unsupported_media_type', 'The request body must be application/json.');
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  // Refused before any schema sees the body, so that no rule has to think of lone surrogates or NUL.
  const illFormed = UNSTORABLE_ESCAPE.test(text) ? illFormedStrings(value) : undefined;
  if (illFormed?.isEmpty === false) throw validationError(illFormed.toDetails());
  return value;
}

// zod's own message for unknown members quotes every one of them (11 MB for a million); zodDetails lists them instead.
// A member a schema requires without a message of its own (the adapters' mapped members) is "is required", as /v1 words it.
const unknownMembersMessage = (issue: { code?: string; expected?: string }) =>
  issue.code === 'unrecognized_keys' ? 'unknown members' : issue.code === 'invalid_type' && issue.expected === 'nonoptional' ? 'is required' : undefined;

/** The parsed body against the route's schema (a missing body counts as `{}`): 422 listing the problems found. */
export function validateBody<B extends z.ZodType>(schema: B | undefined, value: unknown): z.infer<B> {
  if (!schema) return value as z.infer<B>;
  const parsed = schema.safeParse(value === undefined ? {} : value, { error: unknownMembersMessage });
  if (!parsed.success) {
    throw validationError(zodDetails(parsed.error));
  }
  return parsed.data;
}
