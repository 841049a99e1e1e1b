import type { z } from 'zod';
import type { ErrorDetail } from '@mailer/domain';
import { ProblemList } from './error-details';

/** A path with one more part: an index as `[1]`, a member name after a dot (none at the start). */
export function appendPathPart(out: string, part: PropertyKey): string {
  if (typeof part === 'number') return `${out}[${part}]`;
  return out ? `${out}.${String(part)}` : String(part);
}

/** `['to', 1]` -> `to[1]`, `['content', 'html']` -> `content.html`: paths in the request's own terms. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(appendPathPart, '');
}

/**
 * One detail per problem, at most 100 then a count of the rest: an unknown member is a
 * problem of its own, and a body of a million of them must not cost a million details.
 */
export function zodDetails(error: z.ZodError): ErrorDetail[] {
  const problems = new ProblemList();
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      problems.add(formatPath(issue.path) || '(body)', issue.message);
      continue;
    }
    for (const [index, key] of issue.keys.entries()) {
      if (problems.isFull) {
        problems.addUnlisted(issue.keys.length - index);
        break;
      }
      problems.add(formatPath([...issue.path, key]), 'unknown member');
    }
  }
  return problems.toDetails();
}
