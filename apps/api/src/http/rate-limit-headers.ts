import type { RateLimitHeaders } from '@mailer/domain';
import type { ResponseHeader } from './route';

export const RATE_LIMIT_HEADERS: ResponseHeader[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The RateLimit-* headers every POST /v1/emails answer carries (docs/api-decisions.md, "Emails"). */
export function rateLimitHeaderValues(headers: RateLimitHeaders): Record<string, string> {
  return {
    'RateLimit-Limit': String(headers.limit),
    'RateLimit-Remaining': String(headers.remaining),
    'RateLimit-Reset': String(headers.reset),
  };
}
