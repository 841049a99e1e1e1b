import { randomBytes, randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * Bytes from the CSPRNG, drawn 4 KiB at a time into a pool and handed out in slices
 * (what crypto.randomUUID does): ids and request ids are made for every request, and a
 * call into the CSPRNG per id costs more than the id itself. Each byte is handed out once.
 */
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_SIZE) return randomBytes(size);
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + size));
  offset += size;
  return bytes;
}
