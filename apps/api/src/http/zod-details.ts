import type { z } from 'zod';
import type { ErrorDetail } from '@mailer/domain';

/** `['to', 1]` -> `to[1]`, `['content', 'html']` -> `content.html`: paths in the request's own terms. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue): ErrorDetail[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown member' }));
    }
    return [{ path: formatPath(issue.path) || '(body)', message: issue.message }];
  });
}
