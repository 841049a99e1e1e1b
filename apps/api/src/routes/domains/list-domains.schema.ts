import { pageQuerySchema } from '../../http/pagination';
import { externalIdInput } from './domain.schema';

export const listDomainsQuerySchema = pageQuerySchema.extend({
  external_id: externalIdInput.optional().meta({ description: 'Only the active domain with this external_id (normalized as on creation).' }),
});
