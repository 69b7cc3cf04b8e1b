import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createOrganization, createPlacement, createPublisher } from '../helpers/factories.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

describe('admin authentication', () => {
  it('answers 401 auth_missing without a bearer token', async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/v1/admin/organizations', payload: { name: 'x' } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'auth_missing', message: expect.any(String) } });
  });

  it('answers 401 auth_invalid with a wrong token', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/admin/organizations',
      headers: { authorization: 'Bearer wrong-token' },
      payload: { name: 'x' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('auth_invalid');
  });
});

describe('POST /v1/admin/organizations', () => {
  it('creates an organization wrapped in data', async () => {
    const response = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: 'Acme' } });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toEqual({ id: expect.any(String), name: 'Acme', created_at: expect.anything() });
  });

  it('answers 422 with every offending field when the name is missing', async () => {
    const response = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: {} });
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'name' }] });
  });

  it('answers 400 bad_request on malformed JSON', async () => {
    const response = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/organizations',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_request');
  });
});

describe('GET /v1/admin/organizations/{org_id}', () => {
  it('answers the organization as created, and 404 not_found for an unknown or malformed id', async () => {
    const created = await createOrganization(ctx, 'Northwind <b>Traders</b>');
    const response = await ctx.admin({ method: 'GET', url: `/v1/admin/organizations/${created.id}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: created });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await ctx.admin({ method: 'GET', url: `/v1/admin/organizations/${id}` });
      expect(missing.statusCode, id).toBe(404);
      expect(missing.json().error.code, id).toBe('not_found');
    }
    expect((await ctx.app.inject({ method: 'GET', url: `/v1/admin/organizations/${created.id}` })).statusCode).toBe(401);
  });
});

describe('users and memberships', () => {
  it('adds an existing email to a second organization as the same user', async () => {
    const first = await createOrganization(ctx);
    const second = await createOrganization(ctx);
    const email = `shared-${Date.now()}@example.com`;
    const a = await ctx.admin({ method: 'POST', url: `/v1/admin/organizations/${first.id}/users`, payload: { email } });
    const b = await ctx.admin({ method: 'POST', url: `/v1/admin/organizations/${second.id}/users`, payload: { email } });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.json().data).toEqual({ id: a.json().data.id, email, organization_id: second.id });
  });

  it('answers 404 for an unknown organization', async () => {
    const response = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/organizations/00000000-0000-4000-8000-000000000000/users',
      payload: { email: 'a@example.com' },
    });
    expect(response.statusCode).toBe(404);
  });
});

describe('API keys', () => {
  it('shows the key once and stores only its hash', async () => {
    const { apiKey } = await createAdvertiser(ctx, ['reporting']);
    expect(apiKey.key).toMatch(/^ak_/);
    expect(apiKey.permissions).toEqual(['reporting']);
    const { rows } = await ctx.stores.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [apiKey.id]);
    expect(rows[0]!.key_hash).not.toContain(apiKey.key);
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rejects an unknown permission', async () => {
    const organization = await createOrganization(ctx);
    const response = await ctx.admin({
      method: 'POST',
      url: `/v1/admin/organizations/${organization.id}/api-keys`,
      payload: { permissions: ['campaigns', 'billing'] },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details[0].path).toBe('permissions.1');
  });

  it('revokes a key with 204; a second revoke is 204 too and keeps the first revoked_at; an unknown key is 404', async () => {
    const { apiKey, organization } = await createAdvertiser(ctx);
    const revokedAt = async () => {
      const listed = await ctx.admin({ method: 'GET', url: `/v1/admin/organizations/${organization.id}/api-keys` });
      return (listed.json().data as Array<{ id: string; revoked_at: string | null }>).find((key) => key.id === apiKey.id)!.revoked_at;
    };
    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${apiKey.id}` })).statusCode).toBe(204);
    const first = await revokedAt();
    expect(first).toEqual(expect.any(String));
    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${apiKey.id}` })).statusCode).toBe(204);
    expect(await revokedAt()).toBe(first);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': apiKey.key } })).statusCode).toBe(401);
    const unknown = await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${randomUUID()}` });
    expect(unknown.statusCode).toBe(404);
  });

  it('revokes a publisher token idempotently: a second revoke is 204, an unknown token 404', async () => {
    const publisher = await createPublisher(ctx);
    const url = `/v1/admin/publisher-tokens/${publisher.token_id}`;
    expect((await ctx.admin({ method: 'DELETE', url })).statusCode).toBe(204);
    expect((await ctx.admin({ method: 'DELETE', url })).statusCode).toBe(204);
    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${randomUUID()}` })).statusCode).toBe(404);
  });
});

describe('publishers and placement certification', () => {
  it('creates a publisher with a token shown once', async () => {
    const publisher = await createPublisher(ctx);
    expect(publisher.token).toMatch(/^pt_/);
  });

  it('starts placements uncertified, certifies and revokes them with a history entry each time', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    expect(placement).toMatchObject({ publisher_id: publisher.id, certification: 'uncertified' });

    const certified = await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement.id}/certify` });
    expect(certified.statusCode).toBe(200);
    expect(certified.json().data.certification).toBe('certified');

    const revoked = await ctx.admin({
      method: 'POST',
      url: `/v1/admin/placements/${placement.id}/revoke`,
      payload: { reason: 'server-side pixels seen' },
    });
    expect(revoked.json().data.certification).toBe('revoked');

    const read = await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${placement.id}` });
    expect(read.json().data.history.map((entry: { to: string; reason: string }) => [entry.to, entry.reason])).toEqual([
      ['uncertified', 'placement created'],
      ['certified', 'certified by operator'],
      ['revoked', 'server-side pixels seen'],
    ]);
  });

  it('answers 409 conflict for a placement id that exists, saying whether this publisher or another has it, and changes nothing', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const again = await ctx.admin({
      method: 'POST',
      url: `/v1/admin/publishers/${publisher.id}/placements`,
      payload: { id: placement.id },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual({ code: 'conflict', message: `placement ${placement.id} already exists for this publisher` });

    // Placement ids are global (docs/operating.md): another publisher cannot take one, and the answer says why.
    const other = await createPublisher(ctx);
    const taken = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${other.id}/placements`, payload: { id: placement.id, name: 'theirs' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('conflict');
    expect(taken.json().error.message).toMatch(new RegExp(`^placement id ${placement.id} is used by another publisher: placement ids are global`));
    expect(taken.json().error.message).not.toContain(publisher.id);
    const kept = await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${placement.id}` });
    expect(kept.json().data).toMatchObject({ publisher_id: publisher.id, name: `placement ${placement.id}` });
  });

  it('rejects a placement id with control characters', async () => {
    const publisher = await createPublisher(ctx);
    const response = await ctx.admin({
      method: 'POST',
      url: `/v1/admin/publishers/${publisher.id}/placements`,
      payload: { id: 'bad\u0000id' },
    });
    expect(response.statusCode).toBe(422);
  });
});

describe('service-wide behaviour', () => {
  it('answers an unknown route with 404 not_found in the envelope', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });

  it('answers 413 payload_too_large for a body over the limit', async () => {
    const response = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/organizations',
      payload: { name: 'x'.repeat(ctx.config.BODY_LIMIT_BYTES + 10) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('payload_too_large');
  });

  it('GET /healthz answers ok when both stores answer and the event path is healthy', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok', checks: { postgres: 'ok', clickhouse: 'ok', spool: 'ok', event_backlog: 'ok' } });
  });
});
