import type { Request } from 'express';

/** Whether a browser says the request comes from a page of another origin (docs/api-decisions.md, "Keys and accounts"). */
export function isCrossSite(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site !== 'same-origin';
  // Browsers without Fetch Metadata still send Origin on a POST, PUT, PATCH or DELETE: its host must be this one.
  const origin = req.get('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.get('host');
  } catch {
    return true;
  }
}
