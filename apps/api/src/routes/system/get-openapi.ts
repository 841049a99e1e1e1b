import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../http/route';
import { buildOpenApiDocument } from '../../http/openapi';
import { sendJson } from '../../http/respond';

/** The guide (docs/guide.md) opens the document as its description, so that /docs shows it first. */
function guide(): string {
  return readFileSync(path.resolve(__dirname, '../../../../../docs/guide.md'), 'utf8');
}

/** The document of `routes`, as GET /openapi.json answers it and `npm run lint:openapi` lints it. */
export function openApiDocument(routes: RouteDefinition[]) {
  return buildOpenApiDocument(routes, guide());
}

/** Documents `routes()`, which includes this route itself. */
export function createGetOpenApi(routes: () => RouteDefinition[]) {
  let cached: unknown;
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'operations',
    summary: 'This OpenAPI 3.1 document.',
    auth: { kind: 'none' },
    responses: { 200: { description: 'The document.', schema: z.looseObject({ openapi: z.literal('3.1.0') }) } },
    async handle({ res }) {
      cached ??= openApiDocument(routes());
      sendJson(res, 200, cached);
    },
  });
}
