import { z } from 'zod';
import { domainNameInput } from './domain.schema';

/** The label of a domain's tracking host. */
export const trackingSubdomainInput = z
  .string({ error: () => 'must be a string' })
  .regex(/^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'must be one DNS label (letters, digits, hyphens)')
  .transform((label) => label.toLowerCase())
  .optional()
  .meta({ description: 'The label of the tracking host `<subdomain>.<domain>`; `track` unless set.' });

export const updateDomainBodySchema = z.strictObject({
  receiving: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: 'Inbound mail on or off (docs: "Receiving mail").' }),
  receiving_subdomain: domainNameInput
    .nullable()
    .optional()
    .meta({ description: 'Receive at this subdomain of the domain (e.g. `in.example.com`) instead of the domain itself; null: the domain.' }),
  tracking: z
    .strictObject({
      opens: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: 'An open pixel in the HTML part of each to/cc copy.' }),
      clicks: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: 'Each http(s) link of the HTML part through the tracking host.' }),
      subdomain: trackingSubdomainInput,
    })
    .optional()
    .meta({
      description:
        'Opens and clicks (docs: "Opens and clicks"), off by default, for messages whose `track` does not say otherwise. Fields left out keep their value.',
    }),
}).meta({ id: 'UpdateDomainRequest' });
