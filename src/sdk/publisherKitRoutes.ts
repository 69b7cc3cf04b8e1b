import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { integrationCheckRoutes } from './integrationCheckRoutes.js';
import { renderScriptRoute } from './renderScriptRoute.js';

/** What publishers integrate with besides /v1/serve: the browser render kit and the integration check. */
export async function publisherKitRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  await app.register(renderScriptRoute);
  await app.register(integrationCheckRoutes, deps);
}
