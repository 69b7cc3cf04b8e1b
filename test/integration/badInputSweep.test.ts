import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { addUser, createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { composeBody, composeCampaign, validCreative } from '../helpers/managementFactories.js';
import { contract, contractSchema } from '../helpers/contract.js';
import { eventually } from '../helpers/eventually.js';
import { BROWSER_UA, eventsOf, fromAddress, readerAddress, serveClaims, signedToken, trackedLineItem, type TrackedLineItem } from '../helpers/trackingFixtures.js';
import { signTrackingToken } from '../../src/tracking/trackingToken.js';
import { seededRandom } from '../../bench/seededRandom.js';

// A sweep of bad input over every operation of openapi.yaml: bodies, path ids and query parameters
// derived from the contract's own schemas, each answered 4xx in the Error envelope naming what is
// wrong, never 5xx, and changing nothing (the whole Postgres catalog is compared before and after
// each operation's requests). Seeded: BAD_INPUT_SEED=<n> replays a run; a failure prints its seed
// and request. Each operation gets a sample of its bad inputs, not every combination, so the sweep
// stays well under a minute.

const seed = Number(process.env.BAD_INPUT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(seed);
function sample<T>(items: T[], count: number): T[] {
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

/** How many of its field mutations, bad path ids and bad query values each operation is sent. */
const BODY_SAMPLE = 80;
const PATH_SAMPLE = 6;
const QUERY_SAMPLE = 30;

/** A schema of openapi.yaml as parsed: walked by key, so loosely typed. */
type Schema = Record<string, any>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  while (current.$ref) {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<Schema>((node, key) => node[key], contract as Schema);
  }
  return current;
}

/** The object schemas a value may match (a oneOf of an object and null, an allOf wrapper). */
function objectBranch(schema: Schema): Schema | undefined {
  const resolved = resolve(schema);
  if (resolved.type === 'object' || resolved.properties) return resolved;
  for (const branch of [...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) {
    const found = objectBranch(branch);
    if (found) return found;
  }
  return undefined;
}

interface Operation {
  method: Method;
  path: string;
  operationId: string;
  scheme: string;
  body?: { schema: Schema; required: boolean; contentType: string };
  pathParams: string[];
  query: Array<{ name: string; schema: Schema }>;
}

function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(contract.paths)) {
    if (!path.startsWith('/v1/') || path.startsWith('/v1/t/')) continue;
    const shared = ((item as Schema).parameters ?? []) as Schema[];
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operation = raw as Schema;
      const parameters = [...shared, ...(operation.parameters ?? [])].map(resolve);
      const content = operation.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const [contentType, media] = Object.entries(content ?? {})[0] ?? [];
      found.push({
        method: method.toUpperCase() as Method,
        path,
        operationId: operation.operationId,
        scheme: Object.keys(operation.security?.[0] ?? {})[0] ?? 'none',
        body: media ? { schema: media.schema, required: operation.requestBody.required === true, contentType: contentType! } : undefined,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
        query: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => ({ name: parameter.name, schema: parameter.schema })),
      });
    }
  }
  return found;
}

let ctx: TestContext;
let validateRequestBody: Map<string, (body: unknown) => boolean>;
const envelope = contractSchema('#/components/schemas/Error');

/** The tenant the sweep writes at, and another whose ids must stay out of its reach. */
let mine: { key: string; organizationId: string; userId: string; campaignId: string; lineItemId: string; publisherToken: string; publisherId: string; placementId: string; reviewId: string; apiKeyId: string; publisherTokenId: string };
let theirs: { campaignId: string; lineItemId: string; placementId: string; userId: string };

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  const advertiser = await createAdvertiser(ctx);
  const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, { line_item: { creatives: [validCreative] } });
  const publisher = await createPublisher(ctx);
  const placement = await createPlacement(ctx, publisher.id);
  const reviewed = await createPlacement(ctx, publisher.id);
  const review = await ctx.app.inject({
    method: 'POST',
    url: '/v1/publisher/integration-reviews',
    headers: { authorization: `Bearer ${publisher.token}` },
    payload: { placement_ids: [reviewed.id] },
  });
  expect(review.statusCode).toBe(201);
  mine = {
    key: advertiser.key,
    organizationId: advertiser.organization.id,
    userId: advertiser.user.id,
    campaignId,
    lineItemId,
    publisherToken: publisher.token,
    publisherId: publisher.id,
    placementId: placement.id,
    reviewId: review.json().data.id,
    apiKeyId: advertiser.apiKey.id,
    publisherTokenId: publisher.token_id,
  };
  const other = await createAdvertiser(ctx);
  const composed = await composeCampaign(ctx, other.key, other.user.id);
  const otherPublisher = await createPublisher(ctx);
  theirs = { ...composed, placementId: (await createPlacement(ctx, otherPublisher.id)).id, userId: (await addUser(ctx, other.organization.id)).id };

  validateRequestBody = new Map();
  for (const operation of operations()) {
    if (operation.body?.contentType !== 'application/json') continue;
    const pointer = `#/paths/${operation.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${operation.method.toLowerCase()}/requestBody/content/application~1json/schema`;
    const validate = contractSchema(pointer);
    validateRequestBody.set(operation.operationId, (body) => validate(body) as boolean);
  }
});

afterAll(async () => {
  await ctx?.close();
});

/** A valid body of each JSON operation, the starting point of its mutations. */
function validBody(operationId: string): Record<string, unknown> | undefined {
  const placementId = `pl-${randomUUID().slice(0, 8)}`;
  const bodies: Record<string, Record<string, unknown>> = {
    createOrganization: { name: 'Sweep org' },
    addOrganizationUser: { email: `sweep-${randomUUID()}@example.com` },
    createApiKey: { permissions: ['reporting'] },
    createPublisher: { name: 'Sweep publisher' },
    createPlacement: { id: placementId, name: 'Sweep placement' },
    certifyPlacement: { reason: 'checked in the browser' },
    revokePlacementCertification: { reason: 'server-side pixels' },
    serveAd: { placement_id: mine.placementId, context: { query: 'fast laptops', response: 'Here are some laptops' }, user: { ip: '73.162.1.1', user_agent: 'Mozilla/5.0', id: 'u-1' }, language: 'en', explain: true },
    requestIntegrationReview: { placement_ids: [mine.placementId], note: 'see example.com' },
    approveIntegrationReview: { reason: 'looks right' },
    rejectIntegrationReview: { reason: 'pixel fired from the backend' },
    createCampaign: { name: 'Sweep', brand_name: 'Acme', user_id: mine.userId, objective: 'traffic', status: 'paused', starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-02-01T00:00:00Z' },
    validateCampaign: composeBody(mine.userId),
    composeCampaign: composeBody(mine.userId, {
      line_item: {
        targeting: { keywords: { include: ['laptop'], exclude: ['free'] }, languages: ['en'], countries: { include: ['US'] }, semantic: { enabled: true, min_similarity: 0.5 } },
        frequency_cap: { impressions: 3, per: 'day' },
        creatives: [{ ...validCreative, image_url: 'https://cdn.example.com/a.png' }],
      },
    }),
    updateCampaign: { name: 'Renamed', brand_name: 'Acme 2', objective: 'traffic', status: 'paused', ends_at: '2031-01-01T00:00:00Z' },
    duplicateCampaign: { name: 'Copy' },
    // Its body is optional (no body activates everything): the bad ones are cut from this one.
    activateCampaign: { keep_line_items_paused: true },
    createLineItem: { title: 'Another', objective: 'traffic', primary_kpi: 'clicks', budget: { daily: 10, currency: 'EUR', lifetime: 100, pacing: 'asap' }, bids: { bid_type: 'cpm', bid_value: 2 }, frequency_cap: { impressions: 2, per: 'hour' } },
    updateLineItem: { title: 'Renamed', objective: 'traffic', primary_kpi: 'CPC', status: 'paused', frequency_cap: { impressions: 1, per: 'week' } },
    setLineItemBudget: { daily: 20, currency: 'USD', lifetime: 200, pacing: 'even' },
    setLineItemBids: { bid_type: 'cpc', bid_value: 0.5 },
    setLineItemTargeting: {
      keywords: { include: ['laptop'] },
      placements: { include: [mine.placementId], exclude: ['other'] },
      languages: ['en'],
      countries: { include: ['US'], exclude: ['CA'] },
      dayparts: { timezone: 'America/New_York', windows: [{ days: ['mon', 'tue'], start: '09:00', end: '17:00' }] },
      semantic: { enabled: true, min_similarity: 0.4 },
    },
    addCreatives: { creatives: [{ ...validCreative, image_url: 'https://cdn.example.com/b.png' }] },
    previewLineItemMatch: { context: { query: 'laptops', response: 'some laptops' }, language: 'en' },
    setPublisherRevenueShare: { revenue_share: 0.7, effective_from: '2030-01-01' },
    recordConversion: { click_id: randomUUID(), value: 12.5, currency: 'USD', conversion_id: 'order-1', occurred_at: new Date().toISOString() },
  };
  return bodies[operationId];
}

/** A real id for each path parameter, so that a bad body is what the route refuses. */
function realPath(operation: Operation, replaced: Record<string, string> = {}): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    if (name in replaced) return replaced[name]!;
    if (name === 'org_id') return mine.organizationId;
    if (name === 'publisher_id') return mine.publisherId;
    if (operation.path.startsWith('/v1/advertiser/campaigns/')) return mine.campaignId;
    if (operation.path.startsWith('/v1/advertiser/line-items/')) return mine.lineItemId;
    if (operation.path.includes('/placements/')) return mine.placementId;
    if (operation.path.startsWith('/v1/admin/integration-reviews/')) return mine.reviewId;
    if (operation.path.startsWith('/v1/admin/api-keys/')) return randomUUID();
    if (operation.path.startsWith('/v1/admin/publisher-tokens/')) return randomUUID();
    throw new Error(`no id for ${name} of ${operation.path}`);
  });
}

/** Ids of the other tenant, where the route belongs to a tenant (admin routes see every tenant). */
function foreignIds(operation: Operation): string[] {
  if (operation.path.startsWith('/v1/advertiser/campaigns/')) return [theirs.campaignId];
  if (operation.path.startsWith('/v1/advertiser/line-items/')) return [theirs.lineItemId];
  if (operation.path.startsWith('/v1/publisher/placements/')) return [theirs.placementId];
  return [];
}

interface Case {
  kind: string;
  /** The fields or parameters of which the answer must name one ('' for the body as a whole); undefined: any. */
  names?: string | string[];
  status: number[];
  code: string[];
  url: string;
  payload?: string;
  headers?: Record<string, string>;
}

// ---- body mutations --------------------------------------------------------------------------

const RAW = '\u0000raw:';
/** A number JSON can spell but JavaScript cannot hold (1e309, -0): put in the body as written. */
const raw = (text: string) => `${RAW}${text}`;
function serialize(body: unknown): string {
  return JSON.stringify(body).replace(/"\\u0000raw:([^"]*)"/g, '$1');
}

interface Mutation {
  kind: string;
  names: string;
  body: unknown;
  /** Bad by the contract's prose, not its schema (a lone surrogate): no schema check. */
  prose?: boolean;
}

function setAt(body: unknown, path: string[], value: unknown, remove = false): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/**
 * Operations whose texts are only matched or keyed, never stored, and take a lone surrogate as
 * written (openapi.yaml, ServeRequest): a publisher that cut a text mid-emoji still gets its ad.
 */
const MATCHED_ONLY = new Set(['serveAd', 'previewLineItemMatch']);
/** Those texts: the ids, addresses and languages beside them are patterns a lone surrogate fails. */
const MATCHED_TEXT = /^(context\.(query|response)|user\.(user_agent|id))$/;

/** Text fields that the contract says refuse control characters (NUL included). */
const PLAIN_TEXT = new Set(['name', 'brand_name', 'title', 'reason', 'note']);

function mutations(body: Record<string, unknown>, schema: Schema): Mutation[] {
  const found: Mutation[] = [];
  const walk = (value: unknown, fieldSchema: Schema, path: string[]) => {
    const name = path.join('.');
    const resolved = resolve(fieldSchema);
    const object = objectBranch(fieldSchema);
    if (path.length > 0) {
      found.push({ kind: 'null', names: name, body: setAt(body, path, null) });
      for (const wrong of [42, 'text', 'NaN', true, [], {}, [1, 'a']]) found.push({ kind: `wrong type ${JSON.stringify(wrong)}`, names: name, body: setAt(body, path, wrong) });
    }
    if (object && value && typeof value === 'object' && !Array.isArray(value)) {
      found.push({ kind: 'unknown field', names: [...path, 'zz_unknown'].join('.'), body: setAt(body, [...path, 'zz_unknown'], 1), prose: true });
      for (const required of object.required ?? []) if (required in value) found.push({ kind: 'missing', names: [...path, required].join('.'), body: setAt(body, [...path, required], undefined, true) });
      for (const [key, child] of Object.entries(value)) walk(child, object.properties?.[key] ?? {}, [...path, key]);
      return;
    }
    if (Array.isArray(value)) {
      const items = resolve(resolved.items);
      const max = resolved.maxItems as number | undefined;
      if (max !== undefined && value.length > 0) found.push({ kind: 'too many items', names: name, body: setAt(body, path, Array.from({ length: max + 1 }, (_, i) => (typeof value[0] === 'string' ? `${value[0]}${i}` : value[0]))) });
      if (value.length > 0) walk(value[0], items, [...path, '0']);
      return;
    }
    if (typeof value === 'string') {
      const maxLength = (resolved.maxLength ?? resolve(resolved.allOf?.[0]).maxLength) as number | undefined;
      found.push({ kind: 'too long', names: name, body: setAt(body, path, 'x'.repeat((maxLength ?? 100_000) + 1)), prose: maxLength === undefined });
      found.push({ kind: 'lone surrogate', names: name, body: setAt(body, path, `${value}\ud800`), prose: true });
      found.push({ kind: 'NUL', names: name, body: setAt(body, path, `${value.slice(0, 1)}\u0000${value.slice(1)}`), prose: PLAIN_TEXT.has(path.at(-1)!) });
      found.push({ kind: 'RTL mark', names: name, body: setAt(body, path, `\u202e${value}\u200f`) });
      return;
    }
    if (typeof value === 'number') {
      for (const number of [-1, -0.5, 0, 1.5, 1e300, 2 ** 53 + 2]) found.push({ kind: `number ${number}`, names: name, body: setAt(body, path, number) });
      found.push({ kind: 'number 1e309', names: name, body: setAt(body, path, raw('1e309')), prose: true });
      found.push({ kind: 'number -1e309', names: name, body: setAt(body, path, raw('-1e309')), prose: true });
      found.push({ kind: 'number -0', names: name, body: setAt(body, path, raw('-0')) });
    }
  };
  walk(body, schema, []);
  return found;
}

function bodyCases(operation: Operation, url: string): Case[] {
  const json = { 'content-type': 'application/json' };
  const cases: Case[] = [];
  const body = operation.body!;
  if (body.contentType !== 'application/json') {
    const unsupported = { status: [415], code: ['unsupported_media_type'] };
    return [
      { kind: 'no body', url, ...unsupported },
      { kind: 'JSON instead', url, payload: '{"a":1}', headers: json, ...unsupported },
    ];
  }
  const valid = validBody(operation.operationId);
  const first = valid ? Object.keys(valid)[0]! : 'a';
  const text = valid ? serialize(valid) : '{}';
  // A required body that is absent or null is refused as a whole (path ""); the serve, conversion and
  // integration-review routes list their required fields instead (src/http/errors.ts, parseBody).
  const whole = { status: [422], code: ['validation_error'], names: ['', ...(resolve(body.schema).required ?? [])] };
  const deep = { status: [400, 413, 422], code: ['bad_request', 'payload_too_large', 'validation_error'] };
  if (body.required) {
    // An empty body is no body: a client that always sends Content-Type: application/json sends one.
    cases.push({ kind: 'no body', url, ...whole }, { kind: 'empty body', url, payload: '', headers: json, ...whole });
  }
  cases.push(
    { kind: 'JSON null', url, payload: 'null', headers: json, ...whole, names: '' },
    { kind: 'malformed JSON', url, payload: text.slice(0, -3), headers: json, status: [400], code: ['bad_request'] },
    { kind: 'trailing garbage', url, payload: `${text}}x`, headers: json, status: [400], code: ['bad_request'] },
    { kind: 'wrong content type', url, payload: text, headers: { 'content-type': 'text/plain' }, status: [415], code: ['unsupported_media_type'] },
    { kind: 'form content type', url, payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: [415], code: ['unsupported_media_type'] },
    { kind: 'array', url, payload: `[${text}]`, headers: json, ...whole, names: '' },
    { kind: 'string', url, payload: '"x"', headers: json, ...whole, names: '' },
    { kind: 'deep arrays', url, payload: `{"${first}":${'['.repeat(60_000)}${']'.repeat(60_000)}}`, headers: json, ...deep },
    { kind: 'deep objects', url, payload: `{"${first}":${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}}`, headers: json, ...deep },
    { kind: 'over the body limit', url, payload: `{"${first}":"${'x'.repeat(1_100_000)}"}`, headers: json, status: [413], code: ['payload_too_large'] },
    { kind: 'unknown field', url, payload: serialize({ ...valid, zz_unknown: 1 }), headers: json, status: [422], code: ['validation_error'], names: 'zz_unknown' },
  );
  if (!valid) return cases;
  for (const foreign of foreignBodies(operation.operationId, valid)) cases.push({ url, headers: json, ...foreign, payload: serialize(foreign.payload) });
  const validates = validateRequestBody.get(operation.operationId)!;
  if (!validates(JSON.parse(text))) throw new Error(`the sweep's valid body of ${operation.operationId} is not valid by openapi.yaml: ${text}`);
  const bad = mutations(valid, body.schema).filter((mutation) => {
    if (mutation.prose) return true;
    return !validates(JSON.parse(serialize(mutation.body)));
  });
  for (const mutation of sample(bad, BODY_SAMPLE)) {
    const taken = mutation.kind === 'lone surrogate' && MATCHED_ONLY.has(operation.operationId) && MATCHED_TEXT.test(mutation.names);
    cases.push({ kind: mutation.kind, names: mutation.names, url, payload: serialize(mutation.body), headers: json, ...(taken ? { status: [200], code: [] } : { status: [422], code: ['validation_error'] }) });
  }
  return cases;
}

/** Valid bodies that name the other tenant's user or placement: refused as the contract says, nothing written. */
function foreignBodies(operationId: string, valid: Record<string, unknown>): Array<Omit<Case, 'url' | 'payload'> & { payload: unknown }> {
  const forbidden = { status: [403], code: ['forbidden'] };
  if (operationId === 'createCampaign') return [{ kind: "another organization's user", payload: { ...valid, user_id: theirs.userId }, ...forbidden }];
  if (operationId === 'composeCampaign') {
    return [{ kind: "another organization's user", payload: { ...valid, campaign: { ...(valid.campaign as object), user_id: theirs.userId } }, ...forbidden }];
  }
  if (operationId === 'serveAd') return [{ kind: "another publisher's placement", payload: { ...valid, placement_id: theirs.placementId }, status: [404], code: ['not_found'] }];
  if (operationId === 'requestIntegrationReview') {
    return [{ kind: "another publisher's placement", payload: { placement_ids: [theirs.placementId] }, status: [403, 404, 422], code: ['forbidden', 'not_found', 'validation_error'] }];
  }
  return [];
}

// ---- path ids and query parameters ------------------------------------------------------------

function pathCases(operation: Operation): Case[] {
  const valid = validBody(operation.operationId);
  const withBody = operation.body?.contentType === 'application/json' && valid ? { payload: serialize(valid), headers: { 'content-type': 'application/json' } } : {};
  const ids = ['not-a-uuid', randomUUID(), randomUUID().toUpperCase().replace(/-/g, ''), '%00', `${randomUUID()}%E2%80%8F`, 'x'.repeat(129), '%ED%A0%80', '..%2F..%2Fadmin', '%F0%9F%98%80'];
  const chosen = [...sample(ids, PATH_SAMPLE), ...foreignIds(operation)];
  const last = operation.pathParams.at(-1)!;
  const cases: Case[] = [];
  for (const id of chosen) {
    // Only the last path id is bad: the others stay real, so the route itself is reached.
    const url = realPath(operation, { [last]: id });
    cases.push({ kind: `path id ${id.slice(0, 40)}`, url, ...withBody, status: [404], code: ['not_found'] });
  }
  return cases;
}

function badQueryValues(schema: Schema): string[] {
  const resolved = resolve(schema);
  if (resolved.type === 'integer') {
    return ['abc', '1.5', '-1', '-0', '1e2', '0x10', 'NaN', 'Infinity', '1e309', '99999999999999999999999', ' 1', '', String((resolved.maximum ?? 1e15) + 1), '%ED%A0%80', '1%00'];
  }
  const values: string[] = [];
  if (resolved.enum) values.push('bogus', `${resolved.enum[0]}%E2%80%8F`, `${resolved.enum[0]}%00`, '%ED%A0%80', encodeURIComponent(String(resolved.enum[0]).toUpperCase()));
  if (resolved.format === 'date') values.push('2024-13-45', '2024-02-30', 'yesterday', '20240101', '%00', '2024-01-01T00:00:00Z');
  if (resolved.format === 'uuid') values.push('not-a-uuid', '%ED%A0%80', `${randomUUID()}x`);
  if (resolved.maxLength !== undefined) values.push('a'.repeat(resolved.maxLength + 1));
  return values;
}

/** Whether a query value is good by the contract: whole numbers in decimal digits within bounds, strings by their schema. */
function queryValueValid(schema: Schema, value: string): boolean {
  const resolved = resolve(schema);
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return false;
  }
  if (resolved.type === 'integer') {
    if (!/^[0-9]+$/.test(decoded)) return false;
    const number = Number(decoded);
    return number >= (resolved.minimum ?? -Infinity) && number <= (resolved.maximum ?? Infinity);
  }
  if (resolved.enum && !resolved.enum.includes(decoded)) return false;
  if (resolved.maxLength !== undefined && decoded.length > resolved.maxLength) return false;
  if (resolved.format === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(decoded) && !Number.isNaN(Date.parse(`${decoded}T00:00:00Z`)) && new Date(`${decoded}T00:00:00Z`).toISOString().startsWith(decoded);
  if (resolved.format === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(decoded);
  return true;
}

function queryCases(operation: Operation, url: string): Case[] {
  const candidates: Case[] = [];
  for (const { name, schema } of operation.query) {
    for (const value of badQueryValues(schema)) {
      if (queryValueValid(schema, value)) continue;
      candidates.push({ kind: `query ${name}=${value.slice(0, 30)}`, names: name, url: `${url}?${name}=${value}`, status: [400], code: ['bad_request'] });
    }
  }
  const chosen = sample(candidates, QUERY_SAMPLE);
  if (operation.query.length > 0) {
    chosen.push({ kind: 'huge query string', names: 'zz', url: `${url}?${operation.query[0]!.name}=${'a'.repeat(6000)}&zz=${'b'.repeat(6000)}`, status: [400, 414], code: ['bad_request'] });
  }
  return chosen;
}

// ---- sending and checking ---------------------------------------------------------------------

function credentials(scheme: string): Record<string, string> {
  if (scheme === 'ApiKey') return { 'x-api-key': mine.key };
  if (scheme === 'PublisherToken') return { authorization: `Bearer ${mine.publisherToken}` };
  if (scheme === 'AdminToken') return { authorization: `Bearer ${ctx.secrets.adminToken}` };
  return {};
}

/** Every table of Postgres, row by row, as one digest per table: what a refused request must leave as it was. */
async function catalogDigest(): Promise<Record<string, string>> {
  const { rows: tables } = await ctx.stores.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digest: Record<string, string> = {};
  for (const { table_name: table } of tables) {
    const { rows } = await ctx.stores.db.query<{ digest: string }>(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${table}" t`);
    digest[table] = rows[0]!.digest;
  }
  return digest;
}

function describeRequest(operation: Operation, item: Case): string {
  const payload = item.payload === undefined ? '' : ` body=${item.payload.length > 300 ? `${item.payload.slice(0, 300)}... (${item.payload.length} chars)` : item.payload}`;
  return `seed ${seed}: ${operation.method} ${item.url.length > 200 ? `${item.url.slice(0, 200)}...` : item.url} [${item.kind}]${item.headers?.['content-type'] ? ` content-type=${item.headers['content-type']}` : ''}${payload}`;
}

function check(operation: Operation, item: Case, response: LightMyRequestResponse): string | undefined {
  const answer = `${response.statusCode} ${response.body.slice(0, 300)}`;
  if (response.statusCode >= 500) return `5xx: ${answer}`;
  if (!item.status.includes(response.statusCode)) return `expected ${item.status.join(' or ')}, got ${answer}`;
  if (response.statusCode < 300) return undefined;
  let parsed: { error?: { code?: string; details?: Array<{ path: string; message: string }> } };
  try {
    parsed = response.json();
  } catch {
    return `not JSON: ${answer}`;
  }
  if (!envelope(parsed)) return `not the Error envelope: ${answer}`;
  if (!item.code.includes(parsed.error!.code!)) return `expected code ${item.code.join(' or ')}: ${answer}`;
  if (item.names !== undefined) {
    const names = typeof item.names === 'string' ? [item.names] : item.names;
    const named = (parsed.error!.details ?? []).some((detail) => names.some((name) => detail.path === name || detail.path.startsWith(`${name}.`)));
    if (!named) return `details do not name ${names.map((name) => `"${name}"`).join(' or ')}: ${answer}`;
  }
  return undefined;
}

describe(`bad input over every operation of openapi.yaml (seed ${seed})`, () => {
  it('is answered 4xx in the envelope, naming the field, and changes nothing', async () => {
    const failures: string[] = [];
    let sent = 0;
    const all = operations();
    expect(all.length).toBeGreaterThan(50);
    for (const operation of all) {
      const url = realPath(operation);
      const cases = [
        ...(operation.body ? bodyCases(operation, url) : []),
        ...(operation.pathParams.length > 0 ? pathCases(operation) : []),
        ...queryCases(operation, url),
      ];
      if (cases.length === 0) continue;
      const before = await catalogDigest();
      for (const item of cases) {
        const options: InjectOptions = {
          method: operation.method,
          url: item.url,
          headers: { ...credentials(operation.scheme), ...item.headers },
          ...(item.payload === undefined ? {} : { payload: item.payload }),
        };
        const response = await ctx.app.inject(options);
        sent++;
        const failure = check(operation, item, response);
        if (failure) failures.push(`${describeRequest(operation, item)}\n    -> ${failure}`);
      }
      const after = await catalogDigest();
      const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
      if (changed.length > 0) failures.push(`seed ${seed}: ${operation.method} ${operation.path}: bad input changed ${changed.join(', ')}`);
    }
    console.log(`bad input sweep: seed ${seed}, ${sent} requests, ${failures.length} failures`);
    expect(failures).toEqual([]);
  });
});

describe(`tracking links with tokens that are not ours (seed ${seed})`, () => {
  it('answer as docs/tracking.md says, on the direct pixel and through fastify, and bill nothing', async () => {
    const cpm = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 2.5 });
    const cpc = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const cpcToken = signedToken(ctx, serveClaims(cpc, 'CPC', 400_000_000));
    const cpmToken = signedToken(ctx, serveClaims(cpm, 'tCPM', 2_500_000));
    const flip = (token: string, at: number) => `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const randomToken = Array.from({ length: cpcToken.length }, () => alphabet[Math.floor(random() * 64)]).join('');
    const tokens = [
      'x',
      'not-a-token',
      randomToken,
      randomUUID(),
      cpcToken.slice(0, 10),
      cpcToken.slice(0, Math.floor(cpcToken.length / 2)),
      cpcToken.slice(0, -1),
      cpmToken.slice(1),
      flip(cpcToken, Math.floor(random() * cpcToken.length)),
      flip(cpmToken, cpmToken.length - 3),
      signTrackingToken(serveClaims(cpc, 'CPC', 400_000_000), 'another-secret-0123456789abcdef0123456789'),
      signTrackingToken(serveClaims(cpm, 'tCPM', 2_500_000, { n: 999_000_000 }), 'another-secret-0123456789abcdef0123456789'),
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzIjoiMSJ9.c2lnbmF0dXJl',
      encodeURIComponent(JSON.stringify({ s: 'x', c: cpc.campaignId, l: cpc.lineItemId })),
      '%00%ff.x',
      `%E2%80%8F${cpcToken}`,
      `${cpcToken}%00`,
      '%ED%A0%80',
      'A'.repeat(4000),
    ];
    const hugeQuery = `?utm_source=${'q'.repeat(8000)}&cb=${Math.floor(random() * 1e9)}`;
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (ctx.app.server.address() as { port: number }).port;
    const failures: string[] = [];
    for (const token of tokens) {
      for (const query of ['', hugeQuery]) {
        const reader = readerAddress();
        const shown = `seed ${seed}: ${token.slice(0, 60)}${token.length > 60 ? `... (${token.length} chars)` : ''}${query ? ' + huge query' : ''}`;
        // The direct pixel answers base64url tokens before fastify; a real socket reaches it.
        const direct = await fetch(`http://127.0.0.1:${port}/v1/t/i/${token}${query}`, { headers: { 'x-forwarded-for': reader, 'user-agent': BROWSER_UA } });
        const directBody = Buffer.from(await direct.arrayBuffer());
        if (direct.status !== 200 || direct.headers.get('content-type') !== 'image/gif' || directBody.subarray(0, 3).toString() !== 'GIF') {
          failures.push(`${shown}: socket pixel answered ${direct.status} ${direct.headers.get('content-type')} ${directBody.toString().slice(0, 200)}`);
        }
        const pixel = await fromAddress(ctx, `/v1/t/i/${token}${query}`, reader);
        if (pixel.statusCode !== 200 || pixel.headers['content-type'] !== 'image/gif' || !String(pixel.headers['cache-control']).startsWith('no-store')) {
          failures.push(`${shown}: pixel answered ${pixel.statusCode} ${pixel.headers['content-type']} ${pixel.body.slice(0, 200)}`);
        }
        const click = await fromAddress(ctx, `/v1/t/c/${token}${query}`, reader);
        if (click.statusCode === 302) {
          // A tampered link of a real serve still takes the reader to the advertiser (stored bad_token, cost 0).
          if (new URL(String(click.headers.location)).host !== 'shop.example.com') failures.push(`${shown}: click redirected to ${click.headers.location}`);
        } else if (click.statusCode !== 404 || !envelope(click.json()) || click.json().error.code !== 'not_found') {
          failures.push(`${shown}: click answered ${click.statusCode} ${click.body.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);

    // Nothing above is billed. The events of one instance reach ClickHouse in order, so once a valid
    // impression sent last is reported, every one before it is in too.
    const sentinel = await fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(cpm, 'tCPM', 2_500_000))}`, readerAddress());
    expect(sentinel.statusCode).toBe(200);
    const report = async (item: TrackedLineItem) => {
      const response = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/reporting/campaigns?campaign_ids=${item.campaignId}`, headers: { 'x-api-key': item.key } });
      expect(response.statusCode).toBe(200);
      return response.json().data as Array<{ impressions: number; clicks: number; spend_usd: number }>;
    };
    const [cpmRow] = await eventually(async () => {
      const rows = await report(cpm);
      return rows[0]?.impressions === 1 ? rows : undefined;
    }, 'the sentinel impression in the report');
    expect(cpmRow).toMatchObject({ impressions: 1, clicks: 0, spend_usd: 0.0025 });
    const cpcRows = await report(cpc);
    expect(cpcRows.map((row) => [row.impressions, row.clicks, row.spend_usd])).toEqual(cpcRows.map(() => [0, 0, 0]));
    const stored = [...(await eventsOf(ctx, cpm.lineItemId)), ...(await eventsOf(ctx, cpc.lineItemId))];
    expect(stored.filter((event) => event.cost_nanos > 0)).toHaveLength(1);
    expect(stored.filter((event) => event.ivt === '' || event.ivt === null).map((event) => event.type)).toEqual(['impression']);
  });
});
