import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { composeSignedCopies, composeSignedMessage, type CompositionRequest } from './compose-message';
import type { CompositionJob, CompositionResult } from './composition-thread';
import { createDkimSigner } from './dkim-signer';
import type { DeliveryCopy } from './per-delivery-content';

export interface MessageComposer {
  /** The message built and DKIM-signed (see composeSignedMessage). */
  compose(request: CompositionRequest): Promise<Buffer>;
  /** The message built once and signed once per copy, each with its header fields and HTML part (see composeSignedCopies). */
  composeCopies(request: CompositionRequest, copies: DeliveryCopy[]): Promise<Buffer[]>;
  close(): Promise<void>;
}

const THREAD_SCRIPT = path.join(__dirname, 'composition-thread.js');

/**
 * Builds and signs on `threads` worker threads, round robin; with 0 threads on the calling
 * thread. Threads need the compiled thread script: without it (run from the TypeScript
 * sources, or a build that lost the file) creation throws, naming the file, rather than
 * quietly composing on the event loop.
 */
export function createMessageComposer(encryptionKey: Buffer, threads: number, threadScript = THREAD_SCRIPT): MessageComposer {
  if (threads === 0) {
    const dkim = createDkimSigner(encryptionKey);
    return {
      compose: (request) => composeSignedMessage(request, dkim),
      composeCopies: (request, copies) => composeSignedCopies(request, copies, dkim),
      close: async () => undefined,
    };
  }
  if (!existsSync(threadScript)) {
    throw new Error(`COMPOSITION_THREADS is ${threads} but the composition thread script ${threadScript} does not exist: build with \`tsc -b\`, or set COMPOSITION_THREADS=0`);
  }
  const waiting = new Map<number, { thread: number; resolve: (signed: Buffer[]) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let closing = false;
  const workers: Worker[] = [];
  // Requests of one turn of the event loop cross to each thread in one message (see composition-thread.ts).
  let queued: CompositionJob[][] = [];
  const flush = () => {
    const batches = queued;
    queued = [];
    batches.forEach((batch, thread) => workers[thread]!.postMessage(batch));
  };
  // A thread that dies fails what it was composing and is replaced.
  const spawn = (index: number) => {
    const worker = new Worker(threadScript, { workerData: { encryptionKey } });
    worker.on('message', (results: CompositionResult[]) => {
      for (const { id, signed, error } of results) {
        const pending = waiting.get(id);
        waiting.delete(id);
        if (!pending) continue;
        if (error !== undefined || !signed) pending.reject(new Error(error ?? 'no message'));
        else pending.resolve(signed.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
      }
    });
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      for (const [id, pending] of waiting) {
        if (pending.thread !== index) continue;
        waiting.delete(id);
        pending.reject(new Error('the composition thread exited'));
      }
      if (!closing) spawn(index);
    });
    worker.unref();
    workers[index] = worker;
  };
  for (let i = 0; i < threads; i++) spawn(i);
  const submit = (request: CompositionRequest, copies?: DeliveryCopy[]): Promise<Buffer[]> => {
    const id = nextId++;
    const thread = id % threads;
    return new Promise((resolve, reject) => {
      waiting.set(id, { thread, resolve, reject });
      if (queued.length === 0) setImmediate(flush);
      (queued[thread] ??= []).push({ id, request, ...(copies ? { copies } : {}) });
    });
  };
  return {
    compose: async (request) => (await submit(request))[0]!,
    composeCopies: (request, copies) => submit(request, copies),
    async close() {
      closing = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
