import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request } from 'express';
import { AppError, MAX_BODY_BYTES } from '@mailer/domain';
import type { BodyHold } from '@mailer/operations';

export interface BodyTimeouts {
  /** BODY_IDLE_TIMEOUT: the longest silence between two parts of a body. */
  idleMs: number;
  /** BODY_TIMEOUT: the longest a body may take in all, from when its reading starts. */
  totalMs: number;
}

const DECODERS: Record<string, () => Transform> = { gzip: createGunzip, deflate: createInflate, br: createBrotliDecompress };

const tooLarge = () => new AppError('payload_too_large', 'The request body exceeds 16 MiB.');
const cutOff = (message: string) => new AppError('invalid_json', message);
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The body of a request whose route takes one, read once its caller is authenticated, and
 * decoded as its Content-Encoding says (docs/api-decisions.md "Request bodies"); undefined
 * when it has none. At most 16 MiB as sent and as decoded. A body of declared size (Content-Length, no encoding) holds that size
 * of the budget before a byte of it is read, so one that cannot fit is refused at once;
 * any other holds its decoded bytes as they arrive. It is cut off when nothing arrives for
 * `idleMs` or it is not all there after `totalMs`. On any failure reading stops; the
 * answer then closes the connection (createHttpServer), so the rest is never read.
 */
export function readBody(req: Request, hold: BodyHold, timeouts: BodyTimeouts): Promise<Buffer | undefined> {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const declared = chunked ? undefined : Number(req.headers['content-length'] ?? 0);
  if (declared === 0) return Promise.resolve(undefined);
  if (declared !== undefined && declared > MAX_BODY_BYTES) throw tooLarge();
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder = encoding === 'identity' ? undefined : DECODERS[encoding]?.();
  if (encoding !== 'identity' && !decoder) throw new AppError('unsupported_media_type', 'The request body encoding is not supported.');
  const countAsItArrives = declared === undefined || decoder !== undefined;
  if (!countAsItArrives) hold.take(declared);

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sent = 0;
    let received = 0;
    const idle = setTimeout(() => fail(cutOff(`Nothing of the request body arrived for ${seconds(timeouts.idleMs)}.`)), timeouts.idleMs);
    const total = setTimeout(() => fail(cutOff(`The request body did not arrive in full within ${seconds(timeouts.totalMs)}.`)), timeouts.totalMs);
    const arrived = (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > MAX_BODY_BYTES) return fail(tooLarge());
      idle.refresh();
    };
    const decoded = (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_BODY_BYTES) return fail(tooLarge());
      try {
        if (countAsItArrives) hold.take(chunk.length);
      } catch (error) {
        return fail(error);
      }
      chunks.push(chunk);
    };
    const ended = () => {
      stop();
      resolve(Buffer.concat(chunks, received));
    };
    const broken = () => fail(cutOff('The request body could not be decoded as its Content-Encoding says.'));
    const gone = () => {
      if (!req.complete) fail(cutOff('The request body was not received completely.'));
    };
    function stop() {
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', arrived).off('data', decoded).off('end', ended).off('error', gone).off('close', gone);
      decoder?.off('data', decoded).off('end', ended).off('error', broken);
    }
    function fail(error: unknown) {
      stop();
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      req.pause();
      reject(error);
    }

    req.on('data', arrived).on('error', gone).on('close', gone);
    if (decoder) {
      decoder.on('data', decoded).on('end', ended).on('error', broken);
      req.pipe(decoder);
    } else {
      req.on('data', decoded).on('end', ended);
    }
  });
}
