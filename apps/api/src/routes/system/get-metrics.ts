import { defineRoute } from '../../http/route';

export const getMetrics = defineRoute({
  method: 'get',
  path: '/metrics',
  operationId: 'getMetrics',
  tag: 'operations',
  summary: 'Prometheus metrics of this API process.',
  description:
    'Requires the operator token (OPERATOR_TOKEN) as Bearer or as the HTTP Basic password. On a server without ' +
    'OPERATOR_TOKEN it answers 503 operator_token_not_configured.',
  auth: { kind: 'operator' },
  responses: { 200: { description: 'Prometheus text exposition format.', contentType: 'text/plain' } },
  async handle({ res, deps }) {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  },
});
