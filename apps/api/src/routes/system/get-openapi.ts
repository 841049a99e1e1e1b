import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineRoute, type RouteDefinition } from '../../http/route';
import { buildOpenApiDocument } from '../../http/openapi';
import { sendJson } from '../../http/respond';

/** The API's decisions are written in docs/api-decisions.md and shipped as the document's description. */
function description(): string {
  try {
    return readFileSync(path.resolve(__dirname, '../../../../../docs/api-decisions.md'), 'utf8');
  } catch {
    return 'Transactional email API.';
  }
}

/** Documents `routes()`, which includes this route itself. */
export function createGetOpenApi(routes: () => RouteDefinition[]) {
  let cached: unknown;
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    tag: 'operations',
    summary: 'This OpenAPI 3.1 document.',
    auth: { kind: 'none' },
    responses: { 200: { description: 'The document.' } },
    async handle({ res }) {
      cached ??= buildOpenApiDocument(routes(), description());
      sendJson(res, 200, cached);
    },
  });
}
