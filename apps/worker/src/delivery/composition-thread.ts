import { parentPort, workerData } from 'node:worker_threads';
import { composeSignedMessage, type CompositionRequest } from './compose-message';
import { createDkimSigner } from './dkim-signer';

/**
 * A thread that builds and signs messages for the delivery daemon (see MessageComposer):
 * MIME building and RSA signing are its heaviest CPU work, and here they run beside the
 * event loop that talks SMTP, Postgres and Redis.
 */
const dkim = createDkimSigner(Buffer.from((workerData as { encryptionKey: Uint8Array }).encryptionKey));

/** Buffers arrive as Uint8Arrays after the structured clone. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

parentPort!.on('message', ({ id, request }: { id: number; request: CompositionRequest }) => {
  request.message.attachments = request.message.attachments.map((a) => ({ ...a, content: asBuffer(a.content) }));
  composeSignedMessage(request, dkim).then(
    (signed) => parentPort!.postMessage({ id, signed }),
    (error: Error) => parentPort!.postMessage({ id, error: error.message }),
  );
});
