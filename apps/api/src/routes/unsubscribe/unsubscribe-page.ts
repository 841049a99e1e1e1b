import type { Response } from 'express';
import { AppError, daysSinceEpoch, verifyLinkToken } from '@mailer/domain';
import type { ApiDependencies } from '../../container';

/**
 * The delivery a `/u/<token>` link names (docs/api-decisions.md, "Unsubscribe"): the token is
 * the credential, so whatever is wrong with it (forged, altered, expired, made for another use)
 * answers one `not_found`, and so does a delivery that no longer exists.
 */
export function unsubscribeTarget(deps: ApiDependencies, token: string): string {
  const read = verifyLinkToken(token, deps.config.encryptionKey, daysSinceEpoch(deps.now()));
  if (read?.use !== 'unsubscribe') throw notFound();
  return read.deliveryId;
}

export const notFound = () => new AppError('not_found', 'This unsubscribe link is not valid, or it has expired.');

// Inline style only, nothing loaded: the page works in any browser a mail client opens.
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; } button { font: inherit; padding: .5rem 1rem; }</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The confirmation page: its button POSTs the RFC 8058 body to the same URL. */
export const CONFIRM_PAGE = page(
  'Unsubscribe',
  `<h1>Unsubscribe</h1>
<p>Stop receiving these messages at this address?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
);

export const DONE_PAGE = page('Unsubscribed', '<h1>Unsubscribed</h1>\n<p>This address will not receive these messages any more.</p>');

export function sendPage(res: Response, html: string): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.type('html').status(200).send(html);
}
