import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Route } from '../route.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { ErrorMessage, formatDateTime, Notice, ShownOnce } from '../ui.js';
import { Pager, RevocableRow, SecretState, usePagedList } from '../pagedList.js';
import { useResource } from '../resource.js';
import { TableWrap } from '../tableWrap.js';

interface Member {
  id: string;
  email: string;
  created_at: string;
}

interface ApiKeySummary {
  id: string;
  permissions: string[];
  created_at: string;
  revoked_at: string | null;
}

/** One organization (opened from the list): its members and its API keys, with add, create and revoke. */
export function OrganizationPage({ session, route }: { session: Session; route: Route }) {
  const id = route.params.get('id') ?? '';
  const base = `/v1/admin/organizations/${encodeURIComponent(id)}`;
  // The name comes from the API, not from the link: a bookmark or a typed id shows it too.
  const { data: organization, error: organizationError } = useResource<{ name: string }>(session, base);
  // Users, keys and their forms only once the organization is known to exist: an unknown id gets
  // one message, not one per list and forms that could only fail.
  return html`
    <p><a href="#/organizations">All organizations</a></p>
    <${ErrorMessage} error=${organizationError} />
    ${organization && html`<${OrganizationDetails} session=${session} id=${id} base=${base} name=${organization.name} key=${base} />`}`;
}

function OrganizationDetails({ session, id, base, name }: { session: Session; id: string; base: string; name: string }) {
  const [usersVersion, setUsersVersion] = useState(0);
  const [keysVersion, setKeysVersion] = useState(0);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const users = usePagedList<Member>(session, `${base}/users`, usersVersion);
  const keys = usePagedList<ApiKeySummary>(session, `${base}/api-keys`, keysVersion);
  return html`
    <h2>${name}</h2>
    <p>Organization <code>${id}</code>.</p>

    <h2>Users</h2>
    <${ErrorMessage} error=${users.error} />
    ${users.rows?.length === 0 && html`<p>No user yet: campaigns need a member as their owner.</p>`}
    ${users.rows && users.rows.length > 0 && html`<${TableWrap} label="Users"><table aria-label="Users">
      <thead><tr><th scope="col">Email</th><th scope="col">Joined</th><th scope="col">User id (a campaign's user_id)</th></tr></thead>
      <tbody>${users.rows.map((user) => html`<tr key=${user.id}><td>${user.email}</td><td class="time">${formatDateTime(user.created_at)}</td><td><code>${user.id}</code></td></tr>`)}</tbody>
    </table><//>`}
    <${Pager} list=${users} label="users" />
    <${ActionForm} title="Add a user" submitLabel="Add user" fields=${[{ name: 'email', label: 'Email' }]}
      run=${(values: Record<string, string>) => api<{ data: Member }>(session, 'POST', `${base}/users`, { email: values.email ?? '' })}
      onDone=${() => setUsersVersion((count) => count + 1)}
      done=${(answer: { data: Member }) => html`<${Notice}>Added ${answer.data.email}.</${Notice}>`} />

    <h2 id="api-keys-heading" tabindex="-1">API keys</h2>
    <${ErrorMessage} error=${keys.error ?? revokeError} />
    ${keys.rows?.length === 0 && html`<p>No API key yet.</p>`}
    ${keys.rows && keys.rows.length > 0 && html`<${TableWrap} label="API keys"><table aria-labelledby="api-keys-heading">
      <caption class="hint">A key is shown once, when it is made; the service keeps only its hash.</caption>
      <thead><tr><th scope="col">Key id</th><th scope="col">Permissions</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
      <tbody>${keys.rows.map((key) => html`<${RevocableRow} key=${key.id} columns=${5} revoked=${key.revoked_at !== null}
        cells=${html`<td><code class="uuid">${key.id}</code></td><td>${key.permissions.join(', ')}</td><td class="time">${formatDateTime(key.created_at)}</td>
          <td><${SecretState} revokedAt=${key.revoked_at} />${key.revoked_at ? ` ${formatDateTime(key.revoked_at)}` : ''}</td>`}
        label=${`Revoke API key ${key.id}`} onError=${setRevokeError}
        run=${() => { setRevokeError(null); return api(session, 'DELETE', `/v1/admin/api-keys/${key.id}`); }}
        onDone=${() => setKeysVersion((count) => count + 1)} />`)}</tbody>
    </table><//>`}
    <${Pager} list=${keys} label="API keys" />
    <${ActionForm} title="Create an API key" submitLabel="Create API key" createsOnce
      fields=${[{ name: 'permissions', label: 'Permissions', hint: 'Comma-separated: campaigns, reporting (empty: both)' }]}
      run=${(values: Record<string, string>, idempotencyKey: string) => {
        const permissions = (values.permissions ?? '').split(',').map((item) => item.trim()).filter(Boolean);
        return api<{ data: { id: string; key: string } }>(session, 'POST', `${base}/api-keys`, {
          permissions: permissions.length > 0 ? permissions : ['campaigns', 'reporting'],
        }, { idempotencyKey });
      }}
      onDone=${() => setKeysVersion((count) => count + 1)}
      done=${(answer: { data: { id: string; key: string } }) => html`<${ShownOnce} label=${`API key ${answer.data.id}`} value=${answer.data.key} />`} />`;
}
