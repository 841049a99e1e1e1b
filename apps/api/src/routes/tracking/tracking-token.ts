import { daysSinceEpoch, verifyLinkToken, type LinkToken } from '@mailer/domain';
import type { Request } from 'express';
import type { ApiDependencies } from '../../container';

/**
 * The delivery (and link) a tracking link's token names, when it verifies and was made for `use`
 * (docs/api-decisions.md, "Opens and clicks"); undefined for anything else (forged, altered,
 * expired, another use), which each route answers one way.
 */
export function trackingTarget(deps: ApiDependencies, token: string, use: 'open' | 'click'): LinkToken | undefined {
  const read = verifyLinkToken(token, deps.config.encryptionKey, daysSinceEpoch(deps.now()));
  return read?.use === use ? read : undefined;
}

/** What an open's or a click's request shows of the mail client: its user agent, at most 512 characters. */
export const engagementRequest = (req: Request) => ({ userAgent: req.get('user-agent')?.slice(0, 512) ?? null });
