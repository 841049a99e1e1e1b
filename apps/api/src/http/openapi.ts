import { z } from 'zod';
import type { RouteDefinition } from './route';

const errorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
}

/** Express `:id` -> OpenAPI `{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function security(route: RouteDefinition) {
  switch (route.auth.kind) {
    case 'none':
      return [];
    case 'operator':
      return [{ operatorToken: [] }];
    case 'sending':
      return [{ sendingKey: [] }];
    case 'management':
      return [{ managementKey: [route.auth.scope] }];
  }
}

function operation(route: RouteDefinition) {
  const parameters: unknown[] = [];
  for (const name of route.path.match(/:([A-Za-z_]+)/g) ?? []) {
    parameters.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const schema = jsonSchema(route.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    parameters.push({ name, in: 'header', required: header.required, description: header.description, schema: { type: 'string' } });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { 'application/json': { schema: jsonSchema(response.schema, 'output') } } } : {}),
    };
  }
  responses.default = { description: 'An error (see the error codes in info.description).', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: security(route),
    parameters,
    // validateBody validates a missing body as `{}`: the body is optional exactly when `{}` passes.
    ...(route.body ? { requestBody: { required: !route.body.safeParse({}).success, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas that serve requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], description: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Mailer API', version: '1.0.0', description },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        sendingKey: { type: 'http', scheme: 'bearer', description: 'The account\'s sending key, `svc_live_…`; email routes only.' },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN (also accepted as the HTTP Basic password).' },
        managementKey: { type: 'http', scheme: 'bearer', description: 'A management key, `mgmt_live_…`, with the scopes the route lists.' },
      },
      schemas: { Error: jsonSchema(errorSchema, 'output') },
    },
    paths,
  };
}
