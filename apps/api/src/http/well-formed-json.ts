import { ProblemList } from './error-details';
import { appendPathPart } from './zod-details';

const UNSTORABLE = /[\p{Cs}\0]/u;
// A path grows no further past this; an error body shows only its first 256 bytes anyway.
const MAX_PATH_CHARS = 1024;

/** Why `text` cannot be taken: an unpaired surrogate (no UTF-8 encodes one) or a NUL (PostgreSQL's text cannot hold one). */
const problemOf = (text: string) =>
  /\p{Cs}/u.test(text) ? 'must be well-formed Unicode (no unpaired surrogates)' : 'must not contain NUL (U+0000)';

const childPath = (path: string, part: string | number) => (path.length > MAX_PATH_CHARS ? path : appendPathPart(path, part));

/**
 * Every string of a parsed JSON body or query that is not text the service can store (an
 * unpaired surrogate, which no UTF-8 can encode, or a NUL, which PostgreSQL's text cannot
 * hold), member names included, as problems at their paths (docs/api-decisions.md
 * "Request bodies"). It walks with a stack of its own, as a body may nest deeper than the
 * call stack goes.
 */
export function illFormedStrings(body: unknown): ProblemList {
  const problems = new ProblemList();
  // `name` marks a member whose name is the problem: its value is not looked at.
  const pending: { value: unknown; path: string; name?: string }[] = [{ value: body, path: '' }];
  while (pending.length > 0) {
    const { value, path, name } = pending.pop()!;
    if (name !== undefined) {
      problems.add(appendPathPart(path, name.replace(/[\p{Cs}\0]/gu, '\ufffd')), `member name ${problemOf(name)}`);
    } else if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) problems.add(path || '(body)', problemOf(value));
    } else if (Array.isArray(value)) {
      // Pushed last to first, so that problems are found in the body's order.
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: childPath(path, i) });
    } else if (value !== null && typeof value === 'object') {
      const names = Object.keys(value);
      for (let i = names.length - 1; i >= 0; i--) {
        const member = names[i]!;
        if (UNSTORABLE.test(member)) pending.push({ value: undefined, path, name: member });
        else pending.push({ value: (value as Record<string, unknown>)[member], path: childPath(path, member) });
      }
    }
  }
  return problems;
}
