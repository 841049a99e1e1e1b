export { createContainer, closeContainer, type ApiDependencies } from './container';
export { buildApi } from './server';
