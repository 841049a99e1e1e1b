// The accepted emails and their deliveries, read by the API, the console and the CLI.
export {
  countEmails,
  findEmailDetail,
  findEmailForOperator,
  listEmails,
  searchEmails,
  type EmailDetail,
  type EmailListFilters,
  type EmailOwner,
  type EmailSearchFilters,
  type EmailSummary,
  type PagePosition,
} from '@mailer/db';
