import type { Request, Response } from 'express';
import type { ApiDependencies } from '../container';
import type { ConsoleSession } from './console-sessions';
import type { SafeHtml } from './html';

/** What a console page or change works with. */
export interface ConsoleContext {
  deps: ApiDependencies;
  req: Request;
  res: Response;
  session: ConsoleSession;
  params: Record<string, string>;
  /** One value per name: the first, when a name is repeated. */
  query: Record<string, string | undefined>;
  /** The posted form's fields (the CSRF token already checked). */
  form: Record<string, string | string[] | undefined>;
}

/**
 * A console page (GET) or change (POST). It answers with a page, or redirects itself (and
 * returns nothing); it throws an AppError to show the contract's message.
 */
export interface ConsoleRoute {
  method: 'get' | 'post';
  path: string;
  title?: string;
  handle(context: ConsoleContext): Promise<SafeHtml | void>;
}

/** The first value of a query or form field, trimmed; undefined when absent or blank. */
export function field(values: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const raw = values[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value === '' ? undefined : value;
}
