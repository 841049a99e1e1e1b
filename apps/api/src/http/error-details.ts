import type { ErrorDetail } from '@mailer/domain';

/** A validation error lists at most this many problems, then one entry counting the rest (docs/api-decisions.md). */
const MAX_LISTED_PROBLEMS = 100;

/**
 * The problems found in a request, as a validation error's details: the first 100 as found,
 * the rest only counted, so that a body with a million problems costs a hundred details.
 */
export class ProblemList {
  private readonly listed: ErrorDetail[] = [];
  private unlisted = 0;

  get isEmpty(): boolean {
    return this.listed.length === 0;
  }

  get isFull(): boolean {
    return this.listed.length === MAX_LISTED_PROBLEMS;
  }

  add(path: string, message: string): void {
    if (this.isFull) this.unlisted++;
    else this.listed.push({ path, message });
  }

  /** Counts `count` further problems without listing them (the caller checked isFull). */
  addUnlisted(count: number): void {
    this.unlisted += count;
  }

  toDetails(): ErrorDetail[] {
    if (this.unlisted === 0) return this.listed;
    const more = `${this.unlisted.toLocaleString('en-US')} more ${this.unlisted === 1 ? 'problem is' : 'problems are'} not listed`;
    return [...this.listed, { path: '(body)', message: more }];
  }
}

/**
 * The most a path or message takes in an error body, in UTF-8 bytes once JSON-escaped: 101
 * details of two such texts stay well under the 64 KiB an error body may have.
 */
const MAX_TEXT_BYTES = 256;
// A character takes at most 6 bytes JSON-escaped (`\u0001`), so shorter texts always fit.
const ALWAYS_FITS = MAX_TEXT_BYTES / 6;

/** `text`, cut at a character boundary with `…` when its JSON escape would pass MAX_TEXT_BYTES. */
function boundText(text: string): string {
  if (text.length <= ALWAYS_FITS) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(JSON.stringify(char)) - 2;
    if (bytes > MAX_TEXT_BYTES - 3) return `${text.slice(0, end)}…`;
    end += char.length;
  }
  return text;
}

/** Details as an error body shows them: long paths (member names are the client's) and messages cut short. */
export function boundDetails(details: readonly ErrorDetail[]): ErrorDetail[] {
  return details.map((d) => ({ path: boundText(d.path), message: boundText(d.message) }));
}
