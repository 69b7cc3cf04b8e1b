import { html } from 'htm/preact';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { Notice, ShownOnce } from '../ui.js';

const path = (id: string) => encodeURIComponent(id.trim());

/**
 * Organizations, their users and API keys. The admin API has create and revoke routes but no
 * listing, so each form shows what it created (ids to copy into the next form); keys once only.
 */
export function TenancyPage({ session }: { session: Session }) {
  return html`<div class="grid">
    <${ActionForm} title="Create an organization" submitLabel="Create organization" fields=${[{ name: 'name', label: 'Organization name' }]}
      run=${(values: Record<string, string>) => api<{ data: { id: string; name: string } }>(session, 'POST', '/v1/admin/organizations', { name: values.name ?? '' })}
      done=${(answer: { data: { id: string; name: string } }) => html`<${Notice}>Created ${answer.data.name}: id <code data-testid="organization-id">${answer.data.id}</code></${Notice}>`} />
    <${ActionForm} title="Add a user" submitLabel="Add user"
      fields=${[{ name: 'org_id', label: 'Organization id'}, { name: 'email', label: 'Email' }]}
      run=${(values: Record<string, string>) => api<{ data: { id: string; email: string } }>(session, 'POST', `/v1/admin/organizations/${path(values.org_id ?? '')}/users`, { email: values.email ?? '' })}
      done=${(answer: { data: { id: string; email: string } }) => html`<${Notice}>Added ${answer.data.email}: user id <code data-testid="user-id">${answer.data.id}</code></${Notice}>`} />
    <${ActionForm} title="Create an API key" submitLabel="Create API key"
      fields=${[{ name: 'org_id', label: 'Organization id'}, { name: 'permissions', label: 'Permissions', hint: 'Comma-separated: campaigns, reporting (empty: both)' }]}
      run=${(values: Record<string, string>) => {
        const permissions = (values.permissions ?? '').split(',').map((item) => item.trim()).filter(Boolean);
        return api<{ data: { id: string; key: string } }>(session, 'POST', `/v1/admin/organizations/${path(values.org_id ?? '')}/api-keys`, {
          permissions: permissions.length > 0 ? permissions : ['campaigns', 'reporting'],
        });
      }}
      done=${(answer: { data: { id: string; key: string } }) => html`<${ShownOnce} label=${`API key ${answer.data.id}`} value=${answer.data.key} />`} />
    <${ActionForm} title="Revoke an API key" submitLabel="Revoke API key" fields=${[{ name: 'id', label: 'API key id'}]}
      run=${(values: Record<string, string>) => api(session, 'DELETE', `/v1/admin/api-keys/${path(values.id ?? '')}`)}
      done=${() => html`<${Notice}>Revoked: the key stops working at once.</${Notice}>`} />
  </div>`;
}
