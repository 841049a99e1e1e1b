import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { dkimVerdict, testSigningDomain } from '../testing/verify-dkim';
import type { CompositionRequest } from './compose-message';
import { createMessageComposer, type MessageComposer } from './message-composer';

// The compiled thread script (`npm test` builds first): the threads run what the daemon runs.
const THREAD_SCRIPT = path.resolve(__dirname, '../../dist/delivery/composition-thread.js');
const key = testSigningDomain();

const request = (subject: string, domain = key.domain): CompositionRequest => ({
  message: {
    from: { address: 'orders@acme.test', name: 'Acme' },
    to: ['customer@example.test'],
    cc: [],
    subject,
    text: `Order ${subject} has shipped.`,
    attachments: [],
    messageId: `<${subject}@acme.test>`,
    date: new Date('2026-11-24T12:00:00Z'),
  },
  domain,
});

describe('composition threads', () => {
  let composer: MessageComposer;
  afterEach(() => composer.close());

  it('takes the requests of one turn to each thread in one message, and answers each with its own signed message', async () => {
    composer = createMessageComposer(key.encryptionKey, 2, THREAD_SCRIPT);
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const subjects = Array.from({ length: 24 }, (_, i) => `order-${i}`);
      const signed = await Promise.all(subjects.map((s) => composer.compose(request(s))));
      expect(posted).toHaveBeenCalledTimes(2);
      for (const [i, message] of signed.entries()) {
        expect(message.toString()).toContain(`Subject: ${subjects[i]}\r\n`);
        expect(await dkimVerdict(message, key)).toBe('pass');
      }
    } finally {
      posted.mockRestore();
    }
  });

  it('signs one copy per set of header fields on a thread, each over its own fields', async () => {
    composer = createMessageComposer(key.encryptionKey, 1, THREAD_SCRIPT);
    const copies = await composer.composeCopies(request('order-copies'), [{ fields: [{ name: 'List-Id', value: '<a.acme.test>' }] }, { fields: [{ name: 'List-Id', value: '<b.acme.test>' }] }]);
    expect(copies.map((c) => /List-Id: (\S+)/.exec(c.toString())![1])).toEqual(['<a.acme.test>', '<b.acme.test>']);
    for (const copy of copies) expect(await dkimVerdict(copy, key)).toBe('pass');
  });

  it('refuses to start without its thread script, naming it, rather than composing on the event loop', () => {
    const missing = path.join(__dirname, 'no-such-composition-thread.js');
    expect(() => createMessageComposer(key.encryptionKey, 2, missing)).toThrow(missing);
    // Without threads the script is not needed.
    composer = createMessageComposer(key.encryptionKey, 0, missing);
  });

  it('fails only the request that cannot be built when it crossed with others', async () => {
    composer = createMessageComposer(key.encryptionKey, 1, THREAD_SCRIPT);
    const unreadable = { ...key.domain, keys: [{ ...key.domain.keys[0]!, sealedPrivateKey: 'not sealed' }] };
    const results = await Promise.allSettled([composer.compose(request('a')), composer.compose(request('b', unreadable)), composer.compose(request('c'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
