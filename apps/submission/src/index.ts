export { createContainer, closeContainer, type SubmissionDependencies } from './container';
export { createSubmissionServer, listenSubmission, SUBMISSION_USER } from './submission-server';
export { loadTlsMaterial, type TlsMaterial } from './tls-material';
