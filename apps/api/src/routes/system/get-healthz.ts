import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';

export const getHealthz = defineRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getHealth',
  tag: 'operations',
  summary: 'Liveness: the process is up.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'Alive.', schema: z.object({ status: z.literal('ok') }) } },
  async handle({ res }) {
    sendJson(res, 200, { status: 'ok' });
  },
});
