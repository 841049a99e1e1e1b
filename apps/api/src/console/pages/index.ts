import type { ConsoleRoute } from '../console-route';
import { accountRoutes } from './accounts';
import { destinationRoutes } from './destinations';
import { domainRoutes } from './domains';
import { emailRoutes } from './emails';
import { inboundRoutes } from './inbound';
import { suppressionRoutes } from './suppressions';
import { templateRoutes } from './templates';
import { webhookRoutes } from './webhooks';

/** Every page and change of the console, each through the stores and operations the API and the CLI use. */
export const consoleRoutes: ConsoleRoute[] = [...accountRoutes, ...domainRoutes, ...emailRoutes, ...inboundRoutes, ...suppressionRoutes, ...webhookRoutes, ...templateRoutes, ...destinationRoutes];
