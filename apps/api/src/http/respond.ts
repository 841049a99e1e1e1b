import type { Response } from 'express';

/**
 * Writes a JSON answer with Node's own response API. Express's res.json then res.send
 * re-parse the Content-Type they set and run freshness checks on every answer, which cost
 * more than the rest of a small answer; the bytes on the wire are the same.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
