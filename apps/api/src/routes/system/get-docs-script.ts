import { readFileSync } from 'node:fs';
import { defineRoute } from '../../http/route';

let script: Buffer | undefined;

/** Redoc's standalone bundle, from the `redoc` package this API depends on: the page needs no CDN. */
export const getDocsScript = defineRoute({
  method: 'get',
  path: '/docs/redoc.standalone.js',
  operationId: 'getDocsScript',
  tag: 'operations',
  summary: 'The Redoc script the reference page runs.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'Redoc\'s standalone bundle.', contentType: 'text/javascript' } },
  async handle({ res }) {
    script ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript').send(script);
  },
});
