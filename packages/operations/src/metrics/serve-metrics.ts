import { createServer, type Server } from 'node:http';
import { isOperatorAuthorized, OPERATOR_TOKEN_NOT_CONFIGURED_MESSAGE } from '@mailer/domain';
import type { Logger } from '@mailer/logger';

/** What a prom-client Registry offers the endpoint. */
export interface MetricsSource {
  metrics(): Promise<string>;
  contentType: string;
}

/**
 * `GET /metrics` (Prometheus text, behind OPERATOR_TOKEN like the API's; 503 saying so without it) and `GET /healthz`
 * on a daemon's own port (the delivery daemon's, the inbound listener's). A port that cannot be bound is logged, not
 * fatal: the daemon's work matters more.
 */
export function serveMetrics(registry: MetricsSource, options: { port: number; host: string; operatorToken: string | undefined }, logger: Logger): Server {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (req.method !== 'GET' || req.url !== '/metrics') return res.writeHead(404).end();
    if (!options.operatorToken) {
      const body = JSON.stringify({ error: { code: 'operator_token_not_configured', message: OPERATOR_TOKEN_NOT_CONFIGURED_MESSAGE } });
      return res.writeHead(503, { 'content-type': 'application/json' }).end(body);
    }
    if (!isOperatorAuthorized(req.headers.authorization, options.operatorToken)) {
      return res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  server.on('error', (error) => logger.error('metrics server failed', { error: error.message, port: options.port }));
  server.on('listening', () => logger.info('metrics listening', { port: (server.address() as { port: number }).port }));
  server.listen(options.port, options.host);
  return server;
}
