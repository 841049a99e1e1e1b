import type { WebhookEndpoint } from '@mailer/operations';
import {
  seal,
  shownWebhookUrl,
  splitWebhookCredentials,
  unseal,
  validationError,
  WEBHOOK_CREDENTIALS_SEAL_PURPOSE,
  type WebhookFormat,
} from '@mailer/domain';
import type { ApiDependencies } from '../../container';
import { assertWebhookUrl } from './webhook-lookup';

type Dependencies = Pick<ApiDependencies, 'config'>;

/** The endpoint's stored HTTP Basic credentials, opened; null when it has none. */
export const openCredentials = (deps: Dependencies, endpoint: Pick<WebhookEndpoint, 'credentialsSealed'>): string | null =>
  endpoint.credentialsSealed === null ? null : unseal(deps.config.encryptionKey, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, endpoint.credentialsSealed);

/** The URL as the API shows it: the password masked (docs/api-decisions.md, "Webhooks"). */
export const shownUrl = (deps: Dependencies, endpoint: Pick<WebhookEndpoint, 'url' | 'credentialsSealed'>): string =>
  shownWebhookUrl(endpoint.url, openCredentials(deps, endpoint));

const sealCredentials = (deps: Dependencies, credentials: string | null) =>
  credentials === null ? null : seal(deps.config.encryptionKey, WEBHOOK_CREDENTIALS_SEAL_PURPOSE, credentials);

/** A new endpoint's URL, checked for its format: stored without credentials, which are sealed apart. */
export function newWebhookTarget(deps: Dependencies, text: string, format: WebhookFormat): { url: string; credentialsSealed: string | null } {
  const { url, credentials } = splitWebhookCredentials(assertWebhookUrl(text, deps.config.webhooks.allowPrivate, format));
  return { url, credentialsSealed: sealCredentials(deps, credentials) };
}

/**
 * What a PATCH changes of the URL: nothing when it names the URL as shown (the masked password
 * stands for the stored one) or the same URL and credentials; otherwise the new URL checked for
 * the format it will have. Credentials kept under a format other than postmark are refused.
 */
export function changedWebhookTarget(
  deps: Dependencies,
  endpoint: WebhookEndpoint,
  text: string | undefined,
  format: WebhookFormat,
): { url?: string; credentialsSealed?: string | null } {
  const stored = openCredentials(deps, endpoint);
  if (text === undefined || text === shownWebhookUrl(endpoint.url, stored)) {
    if (stored !== null && format !== 'postmark') {
      throw validationError([{ path: 'format', message: 'only a postmark-format endpoint takes HTTP Basic credentials: give a url without them too' }]);
    }
    return {};
  }
  const { url, credentials } = splitWebhookCredentials(assertWebhookUrl(text, deps.config.webhooks.allowPrivate, format));
  return credentials === stored ? { url } : { url, credentialsSealed: sealCredentials(deps, credentials) };
}
