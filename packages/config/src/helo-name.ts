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
