import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

export interface PostEmailsLoad {
  url: string;
  sendingKey: string;
  body: string;
  connections: number;
  seconds: number;
}

/** autocannon driving POST /v1/emails for `seconds`: the same body each time, with a new Idempotency-Key. */
export function loadPostEmails(load: PostEmailsLoad): Promise<autocannon.Result> {
  return autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/emails',
        headers: { authorization: `Bearer ${load.sendingKey}`, 'content-type': 'application/json' },
        body: load.body,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
      },
    ],
  });
}
