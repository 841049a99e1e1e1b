/**
 * Whether a name can stand as SMTP_HELO_NAME: fully qualified (at least two labels of letters,
 * digits and hyphens, not starting or ending with a hyphen, the last not all digits), since
 * receivers check it in HELO and customers publish it in SPF and MX records. A machine's short
 * host name (`vm`) or `localhost` is not (docs/api-decisions.md, "First run").
 */
export function isFullyQualifiedHostName(name: string): boolean {
  const labels = name.replace(/\.$/, '').split('.');
  if (labels.length < 2 || name.length > 253) return false;
  if (!labels.every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label))) return false;
  return !/^\d+$/.test(labels.at(-1)!) && labels.at(-1)!.toLowerCase() !== 'localhost';
}

export const HELO_NAME_PROBLEM =
  'is not a fully qualified host name (such as mail.example.com): receivers check it in HELO, and customers are told to publish it in SPF and MX records';

/**
 * SMTP_HELO_NAME outside production when unset. `.invalid` is reserved (RFC 2606, RFC 6761
 * section 6.4): no such name resolves or can ever be registered, so the MX and SPF records GET
 * /v1/domains/{id}/dns offers with it are plainly unfinished, where a machine's own name (`vm`)
 * looks like an answer (docs/api-decisions.md, "First run").
 */
export const DEVELOPMENT_HELO_NAME = 'mailer.invalid';

/** Whether a host name is under the reserved `.invalid` top-level domain: a placeholder, never a real host. */
export const isPlaceholderHostName = (name: string): boolean => /(^|\.)invalid\.?$/i.test(name);

export const PLACEHOLDER_HOST_PROBLEM = 'is a placeholder (the reserved .invalid domain): set this server\'s fully qualified name before anyone publishes the records GET /v1/domains/{id}/dns lists';
