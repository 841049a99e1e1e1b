import { z } from 'zod';
import { domainNameInput } from '../domains/domain.schema';
import { trackingSubdomainInput } from '../domains/update-domain.schema';

const refused = (message: string) => z.unknown().meta({ description: `Refused: ${message}.` }).optional();

const trackingOption = (what: string) => z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: `As /v1's \`tracking.${what}\`.` });

/** Resend's tracking options of a domain, as /v1's `tracking` (docs/api-decisions.md, "Opens and clicks"). */
const trackingOptions = {
  open_tracking: trackingOption('opens'),
  click_tracking: trackingOption('clicks'),
  tracking_subdomain: trackingSubdomainInput,
};

/** Every other option of Resend's is refused by name rather than dropped. */
function refuseUnsupported(body: Record<string, unknown>, ctx: z.RefinementCtx, supported: readonly string[]) {
  for (const [name, value] of Object.entries(body)) if (!supported.includes(name) && value !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'is not supported' });
}

const refusedOptions = {
  capabilities: refused('sending only'),
  tls: refused('TLS is always opportunistic or as the receiver\'s policy asks'),
};

export const resendCreateDomainBodySchema = z
  .strictObject({
    name: domainNameInput,
    ...trackingOptions,
    region: refused('the service has no regions'),
    custom_return_path: refused('the return path is always bounces.<domain>'),
    ...refusedOptions,
  })
  .superRefine((body, ctx) => refuseUnsupported(body, ctx, ['name', ...Object.keys(trackingOptions)]))
  .meta({ id: 'ResendCreateDomainRequest' });

export const resendUpdateDomainBodySchema = z
  .strictObject({ ...trackingOptions, ...refusedOptions })
  .superRefine((body, ctx) => refuseUnsupported(body, ctx, Object.keys(trackingOptions)))
  .meta({ id: 'ResendUpdateDomainRequest' });

/** The /v1 change a Resend create or update body asks for. */
export const trackingChange = (body: { open_tracking?: boolean; click_tracking?: boolean; tracking_subdomain?: string }) => ({
  tracking: { opens: body.open_tracking, clicks: body.click_tracking, subdomain: body.tracking_subdomain },
});
