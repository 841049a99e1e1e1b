import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { AppError } from '@mailer/domain';

/**
 * How a foreign API (an adapter: docs/api-decisions.md, "Resend and Postmark adapters") speaks
 * at the edge: where its callers put their key, and how the one error vocabulary is written in
 * its terms. Everything between is the /v1 operations'.
 */
export interface ApiDialect {
  /** The name of its security scheme in /openapi.json. */
  securityScheme: string;
  /** The API key the request presents, or undefined when it presents none. */
  credential(req: Request): string | undefined;
  /** A contract error as this API answers it to this request: its status and body. */
  render(error: AppError, req: Request): { status: number; body: unknown };
  /** The error body, documented for every error status of its routes. */
  errorSchema: z.ZodType;
}

const DIALECT_LOCAL = 'dialect';

/** Marks the response as answered in this dialect, for the one error handler. */
export const useDialect = (res: Response, dialect: ApiDialect) => {
  res.locals[DIALECT_LOCAL] = dialect;
};

export const dialectOf = (res: Response): ApiDialect | undefined => res.locals[DIALECT_LOCAL] as ApiDialect | undefined;

/** `Authorization: Bearer <key>`, the header /v1 and Resend read. */
export function bearerCredential(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header ? /^Bearer ([^\s]+)$/i.exec(header.trim()) : null;
  return match?.[1];
}

/** The message with every detail appended in the API's own field names (neither provider's errors carry a list). */
export const withDetails = (error: AppError, path: (p: string) => string): string =>
  error.details?.length ? `${error.message} ${error.details.map((d) => `${path(d.path)}: ${d.message}`).join('; ')}` : error.message;
