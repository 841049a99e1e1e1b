import http from 'node:http';
import express from 'express';

/** Makes `prototype` what Express would have made app.request or app.response: its base object plus `app`. */
function adoptAsExpressPrototype(prototype: object, base: object, app: express.Express): void {
  Object.setPrototypeOf(prototype, base);
  Object.defineProperty(prototype, 'app', { configurable: true, enumerable: true, writable: true, value: app });
}

/** How long Node waits for a request's parts (docs/api-decisions.md "Request bodies"). */
export interface HttpServerTimeouts {
  /** HTTP_HEADERS_TIMEOUT: from a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** BODY_TIMEOUT: the body reader's own bound; Node's is a backstop behind it, for bodies others read (the dashboard's). */
  bodyTimeoutMs: number;
}

const hasBody = (req: http.IncomingMessage) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * The app's HTTP server, whose requests and responses are born with the app's Express
 * prototypes. Otherwise Express re-parents every request and response with
 * Object.setPrototypeOf, which takes both objects off V8's fast paths for every property
 * access that follows, in Express and in Node's HTTP code alike: measured here, about half
 * of Express's CPU per request. Express's own setPrototypeOf then finds the prototype
 * already in place and changes nothing.
 */
export function createHttpServer(app: express.Express, timeouts: HttpServerTimeouts): http.Server {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
    /**
     * An answer written before its request's body has all arrived (a route that takes none,
     * a refusal, a body cut off) closes the connection once sent: the rest of the body is
     * never read, so a client that keeps sending cannot keep the socket.
     */
    override writeHead(statusCode: number, statusMessage?: string, headers?: http.OutgoingHttpHeaders | http.OutgoingHttpHeader[]): this;
    override writeHead(statusCode: number, headers?: http.OutgoingHttpHeaders | http.OutgoingHttpHeader[]): this;
    override writeHead(statusCode: number, ...rest: unknown[]): this {
      if (!this.req.complete && hasBody(this.req)) this.setHeader('Connection', 'close');
      return Reflect.apply(super.writeHead, this, [statusCode, ...rest]) as this;
    }
  }
  adoptAsExpressPrototype(ExpressRequest.prototype, express.request, app);
  adoptAsExpressPrototype(ExpressResponse.prototype, express.response, app);
  app.request = ExpressRequest.prototype as unknown as express.Request;
  app.response = ExpressResponse.prototype as unknown as express.Response;
  const server = http.createServer(
    {
      IncomingMessage: ExpressRequest,
      ServerResponse: ExpressResponse,
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.headersTimeoutMs + timeouts.bodyTimeoutMs,
      // Node looks for requests past those bounds this often (every 30 s by default, which would stretch a 10 s bound to 40 s).
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  // Behind a load balancer, idle keep-alive sockets must outlive its timeout (60 s on most). The
  // headers timeout runs from a request's first byte, so it does not cut an idle keep-alive socket.
  server.keepAliveTimeout = 65_000;
  return server;
}
