export { createContainer, closeContainer, type ApiDependencies } from './container';
export { buildApi } from './server';
export { apiRoutes } from './routes';
export { openApiDocument } from './routes/system/get-openapi';
