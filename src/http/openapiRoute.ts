import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../packageRoot.js';

/** The machine-readable contract, served as committed at the repository root. */
export async function openapiRoute(app: FastifyInstance): Promise<void> {
  const contract = await readFile(path.join(packageRoot, 'openapi.yaml'), 'utf8');
  app.get('/openapi.yaml', async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(contract));
}
