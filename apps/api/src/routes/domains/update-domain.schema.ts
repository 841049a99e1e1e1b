import { z } from 'zod';
import { domainNameInput } from './domain.schema';

export const updateDomainBodySchema = z.strictObject({
  receiving: z.boolean({ error: () => 'must be true or false' }).optional().meta({ description: 'Inbound mail on or off (docs: "Receiving mail").' }),
  receiving_subdomain: domainNameInput
    .nullable()
    .optional()
    .meta({ description: 'Receive at this subdomain of the domain (e.g. `in.example.com`) instead of the domain itself; null: the domain.' }),
}).meta({ id: 'UpdateDomainRequest' });
