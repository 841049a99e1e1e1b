import { parentPort, workerData } from 'node:worker_threads';
import { composeSignedCopies, composeSignedMessage, type CompositionRequest } from './compose-message';
import type { DeliveryCopy } from './per-delivery-content';
import { createDkimSigner } from './dkim-signer';

/**
 * A thread that builds and signs messages for the delivery daemon (see MessageComposer):
 * MIME building and RSA signing are its heaviest CPU work, and here they run beside the
 * event loop that talks SMTP, Postgres and Redis.
 */
const dkim = createDkimSigner(Buffer.from((workerData as { encryptionKey: Uint8Array }).encryptionKey));

/** Buffers arrive as Uint8Arrays after the structured clone. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** One message to build, as the daemon sends it; with `copies`, one signed copy per entry (composeSignedCopies). */
export interface CompositionJob {
  id: number;
  request: CompositionRequest;
  copies?: DeliveryCopy[];
}

/** One message built, one signed message per copy asked for (or why not), as the thread answers. */
export interface CompositionResult {
  id: number;
  signed?: Uint8Array[];
  error?: string;
}

/**
 * Jobs arrive, and results leave, in batches: one message per turn of either event loop
 * rather than one per job, because each message wakes the other thread, and on a busy
 * machine those wake-ups cost more than the copies (docs/api-decisions.md, "Delivery").
 */
let results: CompositionResult[] = [];
const answer = (result: CompositionResult) => {
  if (results.length === 0) setImmediate(() => parentPort!.postMessage(results.splice(0)));
  results.push(result);
};

parentPort!.on('message', (jobs: CompositionJob[]) => {
  for (const { id, request, copies } of jobs) {
    request.message.attachments = request.message.attachments.map((a) => ({ ...a, content: asBuffer(a.content) }));
    (copies ? composeSignedCopies(request, copies, dkim) : composeSignedMessage(request, dkim).then((signed) => [signed])).then(
      (signed) => answer({ id, signed }),
      (error: Error) => answer({ id, error: error.message }),
    );
  }
});
