import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { ErrorMessage, formatDateTime, Notice, ShownOnce } from '../ui.js';
import { Pager, usePagedList } from '../pagedList.js';
import { TableWrap } from '../tableWrap.js';

interface Publisher {
  id: string;
  name: string;
  created_at: string;
}

const publisherLink = (publisher: { id: string }) => `#/publisher?${new URLSearchParams({ id: publisher.id })}`;

/** Every publisher, oldest first, a page at a time; each opens its tokens and placements. */
export function PublishersPage({ session }: { session: Session }) {
  const [version, setVersion] = useState(0);
  const list = usePagedList<Publisher>(session, '/v1/admin/publishers', version);
  return html`
    <${ActionForm} title="Create a publisher" level=${2} submitLabel="Create publisher" fields=${[{ name: 'name', label: 'Publisher name' }]} createsOnce
      run=${(values: Record<string, string>, idempotencyKey: string) =>
        api<{ data: Publisher & { token: string } }>(session, 'POST', '/v1/admin/publishers', { name: values.name ?? '' }, { idempotencyKey })}
      onDone=${() => setVersion((count) => count + 1)}
      done=${(answer: { data: Publisher & { token: string } }) => html`<div>
        <${Notice}>Created <a href=${publisherLink(answer.data)}>${answer.data.name}</a>.</${Notice}>
        <${ShownOnce} label="Its first token" value=${answer.data.token} /></div>`} />
    <h2>All publishers</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.rows?.length === 0 && html`<p>No publisher yet.</p>`}
    ${list.rows && list.rows.length > 0 && html`<${TableWrap} label="Publishers"><table aria-label="Publishers">
      <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Id</th></tr></thead>
      <tbody>${list.rows.map((publisher) => html`<tr key=${publisher.id}>
        <td><a href=${publisherLink(publisher)}>${publisher.name}</a></td>
        <td class="time">${formatDateTime(publisher.created_at)}</td><td><code>${publisher.id}</code></td>
      </tr>`)}</tbody>
    </table><//>`}
    <${Pager} list=${list} label="publishers" />`;
}
