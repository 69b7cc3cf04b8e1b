import type { FastifyInstance } from 'fastify';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { parseInput } from '../http/errors.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { Postgres } from '../store/postgres.js';
import type { ConversionRecorder } from './conversionRecorder.js';
import { conversionBody } from './conversionSchemas.js';
import { classifyVisitor } from './visitor.js';

export interface ConversionRoutesDeps {
  db: Postgres;
  traffic: TrafficClassifier;
  conversions: ConversionRecorder;
}

/**
 * Server-to-server conversions, with the advertiser's API key (campaigns permission). 201: a new
 * attributed conversion; 202: stored but not attributed (invalid click, outside the window), so not
 * reported; 200: this conversion_id was already recorded for this click, nothing new was stored.
 */
export async function conversionRoutes(app: FastifyInstance, { db, traffic, conversions }: ConversionRoutesDeps): Promise<void> {
  app.post('/v1/advertiser/conversions', { onRequest: requireApiKey(db, ['campaigns']) }, async (request, reply) => {
    const input = parseInput(conversionBody, request.body);
    const visitor = classifyVisitor(traffic, request.ip, request.headers['user-agent']);
    const { result, created } = await conversions.record(input, advertiserOf(request).organizationId, visitor, Date.now());
    return reply.code(!created ? 200 : result.attributed ? 201 : 202).send({ data: result });
  });
}
