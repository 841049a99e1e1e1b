-- No query reads messages by sender; the index only served the foreign key 0005 dropped.
DROP INDEX "emails_sender_idx";