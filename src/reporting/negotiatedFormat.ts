import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { ReportFormat } from './reportingParams.js';

/** CSV when the Accept header prefers it to JSON (q-values honoured); JSON otherwise, also with no Accept. */
export function negotiatedFormat(request: FastifyRequest): ReportFormat {
  return new Negotiator(request).mediaType(['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json';
}
