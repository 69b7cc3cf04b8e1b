import { html } from 'htm/preact';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { Notice, ShownOnce } from '../ui.js';

const segment = (id: string | undefined) => encodeURIComponent((id ?? '').trim());

/** Publishers, their tokens (shown once) and their placements; like organizations, create and revoke only. */
export function PublishersPage({ session }: { session: Session }) {
  return html`<div class="grid">
    <${ActionForm} title="Create a publisher" submitLabel="Create publisher" fields=${[{ name: 'name', label: 'Publisher name' }]}
      run=${(values: Record<string, string>) => api<{ data: { id: string; name: string; token: string } }>(session, 'POST', '/v1/admin/publishers', { name: values.name ?? '' })}
      done=${(answer: { data: { id: string; name: string; token: string } }) => html`<div>
        <${Notice}>Created ${answer.data.name}: id <code data-testid="publisher-id">${answer.data.id}</code></${Notice}>
        <${ShownOnce} label="Its first token" value=${answer.data.token} /></div>`} />
    <${ActionForm} title="Issue a publisher token" submitLabel="Issue token" fields=${[{ name: 'publisher_id', label: 'Publisher id' }]}
      run=${(values: Record<string, string>) => api<{ data: { id: string; token: string } }>(session, 'POST', `/v1/admin/publishers/${segment(values.publisher_id)}/tokens`, {})}
      done=${(answer: { data: { id: string; token: string } }) => html`<${ShownOnce} label=${`Token ${answer.data.id}`} value=${answer.data.token} />`} />
    <${ActionForm} title="Revoke a publisher token" submitLabel="Revoke token" fields=${[{ name: 'id', label: 'Token id' }]}
      run=${(values: Record<string, string>) => api(session, 'DELETE', `/v1/admin/publisher-tokens/${segment(values.id)}`)}
      done=${() => html`<${Notice}>Revoked: the token stops working at once.</${Notice}>`} />
    <${ActionForm} title="Register a placement" submitLabel="Register placement"
      fields=${[{ name: 'publisher_id', label: 'Publisher id' }, { name: 'id', label: 'Placement id', hint: "The publisher's own id: letters, digits and . _ : ~ -" }, { name: 'name', label: 'Name (optional)' }]}
      run=${(values: Record<string, string>) => api<{ data: { id: string } }>(session, 'POST', `/v1/admin/publishers/${segment(values.publisher_id)}/placements`, {
        id: values.id ?? '', ...(values.name?.trim() ? { name: values.name } : {}),
      })}
      done=${(answer: { data: { id: string } }) => html`<${Notice}>Registered placement <code>${answer.data.id}</code>, uncertified: <a href=${`#/placements?id=${encodeURIComponent(answer.data.id)}`}>open it</a>.</${Notice}>`} />
  </div>`;
}
