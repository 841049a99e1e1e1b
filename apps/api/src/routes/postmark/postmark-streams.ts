import { AppError, type EmailType } from '@mailer/domain';

/** Postmark's default message stream ids (docs/api-decisions.md, "Streams"). */
export const POSTMARK_STREAM_IDS = ['outbound', 'broadcast'] as const;
export type PostmarkStreamId = (typeof POSTMARK_STREAM_IDS)[number];

/** The stream each Postmark stream id is. */
export const POSTMARK_STREAMS: Readonly<Record<PostmarkStreamId, EmailType>> = { outbound: 'transactional', broadcast: 'broadcast' };

const isStreamId = (id: string): id is PostmarkStreamId => (POSTMARK_STREAM_IDS as readonly string[]).includes(id);

/** The stream a Postmark stream id in a path names; any other id is refused by name. */
export function streamOfPostmark(id: string): EmailType {
  if (!isStreamId(id)) {
    throw new AppError('validation_error', 'The message streams are outbound (transactional) and broadcast.', { details: [{ path: 'MessageStream', message: 'must be outbound or broadcast' }] });
  }
  return POSTMARK_STREAMS[id];
}

/** The Postmark stream id of a stream. */
export const postmarkStreamOf = (stream: EmailType): PostmarkStreamId => (stream === 'transactional' ? 'outbound' : 'broadcast');
