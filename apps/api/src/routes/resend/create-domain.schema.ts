import { z } from 'zod';
import { domainNameInput } from '../domains/domain.schema';

const refused = (message: string) => z.unknown().meta({ description: `Refused: ${message}.` }).optional();

/** Resend's create body: only `name` has a meaning here; every option is refused by name rather than dropped. */
export const resendCreateDomainBodySchema = z
  .strictObject({
    name: domainNameInput,
    region: refused('the service has no regions'),
    custom_return_path: refused('the return path is always bounces.<domain>'),
    capabilities: refused('sending only'),
    open_tracking: refused('opens are not tracked'),
    click_tracking: refused('clicks are not tracked'),
    tls: refused('TLS is always opportunistic or as the receiver\'s policy asks'),
    tracking_subdomain: refused('opens and clicks are not tracked'),
  })
  .superRefine((body, ctx) => {
    for (const [name, value] of Object.entries(body)) if (name !== 'name' && value !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'is not supported' });
  })
  .meta({ id: 'ResendCreateDomainRequest' });

