import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../app.js';

export async function managementRoutes(_app: FastifyInstance, _deps: FeatureDeps): Promise<void> {}
