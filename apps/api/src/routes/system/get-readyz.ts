import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';

const checkSchema = z.enum(['ok', 'unavailable']);

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref())]);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

export const getReadyz = defineRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadiness',
  tag: 'operations',
  summary: 'Readiness: PostgreSQL and Redis are reachable.',
  description: 'Answers 503 while either is unreachable. Intake keeps accepting while only Redis is down.',
  auth: { kind: 'none' },
  responses: {
    200: { description: 'Ready.', schema: z.object({ status: z.literal('ready'), database: checkSchema, redis: checkSchema }) },
    503: { description: 'Not ready.', schema: z.object({ status: z.literal('not_ready'), database: checkSchema, redis: checkSchema }) },
  },
  async handle({ res, deps }) {
    const [database, redis] = await Promise.all([probe(() => deps.db`select 1`), probe(() => deps.redis.ping())]);
    const ready = database === 'ok' && redis === 'ok';
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', database, redis });
  },
});
