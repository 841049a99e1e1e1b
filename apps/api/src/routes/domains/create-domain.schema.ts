import { z } from 'zod';
import { domainNameInput, externalIdInput } from './domain.schema';

export const createDomainBodySchema = z.strictObject({
  name: domainNameInput,
  external_id: externalIdInput.nullable().optional(),
}).meta({ id: 'CreateDomainRequest' });
