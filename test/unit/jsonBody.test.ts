import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { jsonBodyReader } from '../../src/http/jsonBody.js';

/** fastify's own parser (secure-json-parse, prototype poisoning an error), as the reader called it before its JSON.parse fast path. */
function fastifyParsed(text: string): { value: unknown } | 'error' {
  const parse = Fastify().getDefaultJsonParser('error', 'error');
  let parsed: { value: unknown } | 'error' = 'error';
  parse(undefined as never, text, (error, value) => (parsed = error === null ? { value } : 'error'));
  return parsed;
}

function readerParsed(text: string): { value: unknown } | 'error' {
  const read = jsonBodyReader(Fastify());
  try {
    return { value: read('application/json', Buffer.from(text, 'utf8')) };
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('bad_request');
    return 'error';
  }
}

describe('jsonBodyReader', () => {
  it('reads every body as fastify parser does, JSON.parse taking only bodies where no key can be __proto__ or constructor', () => {
    const texts = [
      '{"placement_id":"p","context":{"query":"Hello","response":"World"}}',
      '{"a":[1,2,{"b":null}],"c":"d\\"e"}',
      '"a string"',
      '42',
      'null',
      '[1, 2',
      '{"a":1,}',
      '\ufeff{"a":1}',
      '{"__proto__": {"x": 1}}',
      '{"a": {"__proto__": {"x": 1}}}',
      '{"\\u005f_proto__": {"x": 1}}',
      '{"__pr\\u006fto__": {"x": 1}}',
      '{"constructor": {"prototype": {"x": 1}}}',
      '{"c\\u006fnstructor": {"prototype": {"x": 1}}}',
      '{"text": "the __proto__ of a constructor, as words"}',
      '{"text": "caf\\u00e9"}',
      '{"text": "café ☕"}',
    ];
    for (const text of texts) expect(readerParsed(text), text).toEqual(fastifyParsed(text));
  });

  it('names the rule when it refuses a __proto__ key or a constructor.prototype path (valid JSON), not "not valid JSON"', () => {
    const read = jsonBodyReader(Fastify());
    for (const text of ['{"a":1,"__proto__":{"x":1}}', '{"\\u005f_proto__": 1}', '{"constructor": {"prototype": {"x": 1}}}']) {
      expect(() => read('application/json', Buffer.from(text, 'utf8')), text).toThrow(/"__proto__" key or a "constructor" object with a "prototype" key, which is refused/);
    }
    expect(() => read('application/json', Buffer.from('{"a":1,}', 'utf8'))).toThrow('request body is not valid JSON');
  });

  it('reads an empty or blank body as no body', () => {
    expect(readerParsed('')).toEqual({ value: undefined });
    expect(readerParsed('  \n')).toEqual({ value: undefined });
  });
});
