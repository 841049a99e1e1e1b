import type { RouteDefinition } from '../http/route';
import { getHealthz } from './system/get-healthz';
import { getReadyz } from './system/get-readyz';
import { getMetrics } from './system/get-metrics';
import { createGetOpenApi } from './system/get-openapi';

/** Every endpoint of the service; the app and /openapi.json are both built from this list. */
export const apiRoutes: RouteDefinition[] = [
  getHealthz,
  getReadyz,
  getMetrics,
  createGetOpenApi(() => apiRoutes),
];
