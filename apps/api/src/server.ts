import type { Server } from 'node:http';
import type { ApiDependencies } from './container';
import { createApp } from './http/app';
import { createHttpServer } from './http/http-server';
import { mountConsole } from './console/mount-console';
import { mountQueueDashboard } from './operator/mount-queue-dashboard';
import { apiRoutes } from './routes';

export function buildApi(deps: ApiDependencies) {
  return createApp(deps, apiRoutes, {
    mount: (app) => {
      mountQueueDashboard(app, deps);
      mountConsole(app, deps);
    },
  });
}

export function listen(deps: ApiDependencies): Promise<Server> {
  const app = buildApi(deps);
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app, deps.config.http);
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve(server));
  });
}
