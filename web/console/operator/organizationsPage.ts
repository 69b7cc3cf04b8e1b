import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { ErrorMessage, formatDateTime, Notice } from '../ui.js';
import { Pager, usePagedList } from '../pagedList.js';
import { TableWrap } from '../tableWrap.js';

interface Organization {
  id: string;
  name: string;
  created_at: string;
}

const organizationLink = (organization: { id: string }) => `#/organization?${new URLSearchParams({ id: organization.id })}`;

/** Every organization, oldest first, a page at a time; each opens its users and API keys. */
export function OrganizationsPage({ session }: { session: Session }) {
  const [version, setVersion] = useState(0);
  const list = usePagedList<Organization>(session, '/v1/admin/organizations', version);
  return html`
    <${ActionForm} title="Create an organization" level=${2} submitLabel="Create organization" fields=${[{ name: 'name', label: 'Organization name' }]} createsOnce
      run=${(values: Record<string, string>, idempotencyKey: string) =>
        api<{ data: Organization }>(session, 'POST', '/v1/admin/organizations', { name: values.name ?? '' }, { idempotencyKey })}
      onDone=${() => setVersion((count) => count + 1)}
      done=${(answer: { data: Organization }) => html`<${Notice}>Created <a href=${organizationLink(answer.data)}>${answer.data.name}</a>.</${Notice}>`} />
    <h2>All organizations</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.rows?.length === 0 && html`<p>No organization yet.</p>`}
    ${list.rows && list.rows.length > 0 && html`<${TableWrap} label="Organizations"><table aria-label="Organizations">
      <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Id</th></tr></thead>
      <tbody>${list.rows.map((organization) => html`<tr key=${organization.id}>
        <td><a href=${organizationLink(organization)}>${organization.name}</a></td>
        <td class="time">${formatDateTime(organization.created_at)}</td><td><code>${organization.id}</code></td>
      </tr>`)}</tbody>
    </table><//>`}
    <${Pager} list=${list} label="organizations" />`;
}
