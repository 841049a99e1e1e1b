export { createContainer, closeContainer, type SubmissionDependencies } from './container';
export { createSubmissionServer, listenSubmission } from './submission-server';
export { SUBMISSION_USER } from './authenticate';
export { loadTlsMaterial, type TlsMaterial } from './tls-material';
