import http from 'node:http';
import express from 'express';

/** Makes `prototype` what Express would have made app.request or app.response: its base object plus `app`. */
function adoptAsExpressPrototype(prototype: object, base: object, app: express.Express): void {
  Object.setPrototypeOf(prototype, base);
  Object.defineProperty(prototype, 'app', { configurable: true, enumerable: true, writable: true, value: app });
}

/**
 * The app's HTTP server, whose requests and responses are born with the app's Express
 * prototypes. Otherwise Express re-parents every request and response with
 * Object.setPrototypeOf, which takes both objects off V8's fast paths for every property
 * access that follows, in Express and in Node's HTTP code alike: measured here, about half
 * of Express's CPU per request. Express's own setPrototypeOf then finds the prototype
 * already in place and changes nothing.
 */
export function createHttpServer(app: express.Express): http.Server {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {}
  adoptAsExpressPrototype(ExpressRequest.prototype, express.request, app);
  adoptAsExpressPrototype(ExpressResponse.prototype, express.response, app);
  app.request = ExpressRequest.prototype as unknown as express.Request;
  app.response = ExpressResponse.prototype as unknown as express.Response;
  return http.createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);
}
