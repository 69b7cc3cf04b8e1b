import type { FastifyInstance } from 'fastify';

/**
 * fastify's own JSON parser (prototype-poisoning safe), except that an empty body counts as no
 * body: `POST .../activate` with a JSON content type and nothing in it is a valid request.
 * fastify's text/plain parser goes: a text body would reach the schemas as a string and answer
 * 422, where the contract says 415 unsupported_media_type for anything that is not JSON.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}
