import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { packageRoot } from '../../src/packageRoot.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** openapi.yaml as served, parsed. */
export const contract = parse(readFileSync(path.join(packageRoot, 'openapi.yaml'), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

/**
 * ajv over the contract in strict mode: a schema with a keyword JSON Schema does not know fails to
 * compile, such as the stray key a description cut at its comma leaves behind. Declared: OpenAPI's
 * own schema keywords, and the document's top-level fields, since the whole document is added as
 * the root that the schemas' `$ref`s point into.
 */
const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags']);
addFormats(ajv);
// JSON Schema's `iri` (RFC 3987), which ajv-formats lacks: the contract's advertiser links are kept as
// sent, non-ASCII and spaces included. Read as the service reads them (z.url, the WHATWG parser).
ajv.addFormat('iri', { type: 'string', validate: (text: string) => URL.canParse(text) });
ajv.addSchema(contract, 'openapi.yaml');

/** The validator of the schema at a JSON pointer into the contract, e.g. `#/components/schemas/Error`. */
export function contractSchema(pointer: string): ValidateFunction {
  const validate = ajv.getSchema(`openapi.yaml${pointer}`);
  if (!validate) throw new Error(`openapi.yaml has no schema at ${pointer}`);
  return validate;
}

/** Compiles a schema with the contract's strict settings (to show what strict mode refuses). */
export function compileStrict(schema: object): ValidateFunction {
  return ajv.compile(schema);
}
