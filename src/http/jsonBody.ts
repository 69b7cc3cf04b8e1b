import type { FastifyInstance } from 'fastify';

/**
 * fastify's own JSON parser (prototype-poisoning safe), except that an empty body counts as no
 * body: `POST .../activate` with a JSON content type and nothing in it is a valid request.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}
