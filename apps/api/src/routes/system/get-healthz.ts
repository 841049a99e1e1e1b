import { z } from 'zod';
import { defineRoute } from '../../http/route';

export const getHealthz = defineRoute({
  method: 'get',
  path: '/healthz',
  tag: 'operations',
  summary: 'Liveness: the process is up.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'Alive.', schema: z.object({ status: z.literal('ok') }) } },
  async handle({ res }) {
    res.json({ status: 'ok' });
  },
});
