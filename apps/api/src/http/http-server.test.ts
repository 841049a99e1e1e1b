import express from 'express';
import request from 'supertest';
import { createHttpServer } from './http-server';

describe('createHttpServer', () => {
  it('gives requests and responses the app prototypes from birth, and Express works on them as usual', async () => {
    const app = express();
    const born: { request: unknown; response: unknown }[] = [];
    app.get('/probe/:id', (req, res) => {
      res.status(201).set('X-Probe', req.params.id!).json({ path: req.path, app: req.app === app && res.app === app, query: req.query });
    });
    const server = createHttpServer(app, { headersTimeoutMs: 10_000, bodyTimeoutMs: 60_000 });
    // Before Express sees them.
    server.prependListener('request', (req, res) => born.push({ request: Object.getPrototypeOf(req), response: Object.getPrototypeOf(res) }));
    const res = await request(server).get('/probe/42?x=1');
    expect(res.status).toBe(201);
    expect(res.headers['x-probe']).toBe('42');
    expect(res.body).toEqual({ path: '/probe/42', app: true, query: { x: '1' } });
    expect(born).toEqual([{ request: app.request, response: app.response }]);
  });
});
