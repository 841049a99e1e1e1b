import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'mailer_console';

/** The session id the request's cookie carries, if any. */
export function sessionIdOf(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure when the
 * request came over HTTPS (directly, or through a trusted proxy: TRUST_PROXY), Path=/ so that
 * Bull Board at /admin/queues takes the same session (docs/api-decisions.md, "Operator console").
 */
export function setSessionCookie(req: Request, res: Response, id: string): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`);
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${req.secure ? '; Secure' : ''}`);
}
