import { z } from 'zod';
import { displayNameInput, transportSecurityPolicyInput } from './sender.schema';

/** Members left out keep their value; `display_name: null` removes the display name. */
export const updateSenderBodySchema = z.strictObject({
  display_name: displayNameInput.nullable().optional(),
  transport_security_policy: transportSecurityPolicyInput.optional(),
}).meta({ id: 'UpdateSenderRequest' });
