import { defineRoute } from '../../http/route';

/**
 * The reference page: Redoc renders /openapi.json, the guide (docs/guide.md) first. Everything it
 * loads is served by this API (the policy refuses anything else, e.g. the logo Redoc links from its CDN).
 */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailer API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/openapi.json" hide-hostname required-props-first path-in-middle-panel></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const getDocs = defineRoute({
  method: 'get',
  path: '/docs',
  operationId: 'getDocs',
  tag: 'operations',
  summary: 'This reference, with the guide first, as a web page.',
  auth: { kind: 'none' },
  responses: { 200: { description: 'The page (Redoc).', contentType: 'text/html' } },
  async handle({ res }) {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.type('html').send(PAGE);
  },
});
