import { z } from 'zod';
import { DEFAULT_TRANSPORT_SECURITY_POLICY, parseMailbox } from '@mailer/domain';
import { displayNameInput, transportSecurityPolicyInput } from './sender.schema';

const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

export const createSenderBodySchema = z.strictObject({
  email: z
    .string({ error: required('a string') })
    .transform((value, ctx) => {
      const mailbox = parseMailbox(value);
      if (mailbox) return mailbox;
      ctx.addIssue({ code: 'custom', message: 'must be an email address such as hello@example.com' });
      return z.NEVER;
    })
    .meta({ description: 'An address whose domain part is the domain of the path (IDN accepted, compared as A-labels).' }),
  display_name: displayNameInput.nullable().optional(),
  transport_security_policy: transportSecurityPolicyInput.default(DEFAULT_TRANSPORT_SECURITY_POLICY),
}).meta({ id: 'CreateSenderRequest' });
