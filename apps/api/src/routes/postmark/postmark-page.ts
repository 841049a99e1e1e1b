import { z } from 'zod';
import { integerParam } from '../../http/pagination';

/** Postmark's documented bound on count + offset. */
export const POSTMARK_MAX_WINDOW = 10_000;

/**
 * Postmark's paging, `count` (1..500) and `offset`, read as the first `offset + count` rows of
 * the /v1 list, newest first (at most 10,000, as Postmark bounds it). Postmark's filters are not
 * offered: a filter the list cannot apply is refused (unknown member), never ignored.
 */
export const postmarkPageQuerySchema = z
  .strictObject({
    count: integerParam(1, 500).meta({ type: 'integer', minimum: 1, maximum: 500 }),
    offset: integerParam(0, POSTMARK_MAX_WINDOW).optional().default(0).meta({ type: 'integer', minimum: 0, default: 0 }),
  })
  .refine((q) => q.count + q.offset <= POSTMARK_MAX_WINDOW, { message: `count + offset must be at most ${POSTMARK_MAX_WINDOW}`, path: ['offset'] });
