import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Route } from '../route.js';
import type { Session } from '../session.js';
import { ActionForm } from '../actionForm.js';
import { ErrorMessage, formatDateTime, Notice, ShownOnce } from '../ui.js';
import { CertificationBadge } from '../placements.js';
import { Pager, RevocableRow, SecretState, usePagedList } from '../pagedList.js';
import { useResource } from '../resource.js';
import { TableWrap } from '../tableWrap.js';

interface TokenSummary {
  id: string;
  created_at: string;
  revoked_at: string | null;
}

interface PlacementSummary {
  id: string;
  name: string | null;
  certification: string;
  updated_at: string;
}

interface RevenueShareSchedule {
  current: { revenue_share: number; effective_from: string | null };
  scheduled: Array<{ revenue_share: number; effective_from: string }>;
}

const sharePercent = (share: number) => share.toLocaleString('en-US', { style: 'percent', maximumFractionDigits: 4 });

const placementLink = (id: string) => `#/placements?${new URLSearchParams({ id })}`;

/**
 * One publisher (opened from the list): its revenue share today and those scheduled (set through the
 * API: a mistyped one shows here before it prices a day), its tokens (issue, shown once; revoke) and its placements
 * (register; each opens its certification, history and integration check, to certify or revoke).
 */
export function PublisherPage({ session, route }: { session: Session; route: Route }) {
  const id = route.params.get('id') ?? '';
  const base = `/v1/admin/publishers/${encodeURIComponent(id)}`;
  // The name comes from the API, not from the link: a bookmark or a typed id shows it too.
  const { data: publisher, error: publisherError } = useResource<{ name: string }>(session, base);
  // Placements, tokens and their forms only once the publisher is known to exist: an unknown id gets
  // one message, not one per list and forms that could only fail.
  return html`
    <p><a href="#/publishers">All publishers</a></p>
    <${ErrorMessage} error=${publisherError} />
    ${publisher && html`<${PublisherDetails} session=${session} id=${id} base=${base} name=${publisher.name} key=${base} />`}`;
}

function PublisherDetails({ session, id, base, name }: { session: Session; id: string; base: string; name: string }) {
  const [tokensVersion, setTokensVersion] = useState(0);
  const [placementsVersion, setPlacementsVersion] = useState(0);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const tokens = usePagedList<TokenSummary>(session, `${base}/tokens`, tokensVersion);
  const placements = usePagedList<PlacementSummary>(session, `${base}/placements`, placementsVersion);
  return html`
    <h2>${name}</h2>
    <p>Publisher <code>${id}</code>.</p>
    <${RevenueShare} session=${session} base=${base} />

    <h2>Placements</h2>
    <${ErrorMessage} error=${placements.error} />
    ${placements.rows?.length === 0 && html`<p>No placement yet.</p>`}
    ${placements.rows && placements.rows.length > 0 && html`<${TableWrap} label="Placements"><table aria-label="Placements">
      <caption class="hint">Open a placement to see its history and integration check, and to certify or revoke it with a reason.</caption>
      <thead><tr><th scope="col">Placement id</th><th scope="col">Name</th><th scope="col">Certification</th><th scope="col">Changed</th></tr></thead>
      <tbody>${placements.rows.map((placement) => html`<tr key=${placement.id}>
        <td><a href=${placementLink(placement.id)}>${placement.id}</a></td><td>${placement.name ?? ''}</td>
        <td><${CertificationBadge} state=${placement.certification} /></td><td class="time">${formatDateTime(placement.updated_at)}</td>
      </tr>`)}</tbody>
    </table><//>`}
    <${Pager} list=${placements} label="placements" />
    <${ActionForm} title="Register a placement" submitLabel="Register placement" createsOnce
      fields=${[{ name: 'id', label: 'Placement id', hint: "The publisher's own id (letters, digits and . _ : ~ -)" }, { name: 'name', label: 'Name (optional)' }]}
      run=${(values: Record<string, string>, idempotencyKey: string) => api<{ data: { id: string } }>(session, 'POST', `${base}/placements`, {
        id: values.id ?? '', ...(values.name?.trim() ? { name: values.name } : {}),
      }, { idempotencyKey })}
      onDone=${() => setPlacementsVersion((count) => count + 1)}
      done=${(answer: { data: { id: string } }) => html`<${Notice}>Registered placement <code>${answer.data.id}</code>, uncertified.</${Notice}>`} />

    <h2 id="tokens-heading" tabindex="-1">Tokens</h2>
    <${ErrorMessage} error=${tokens.error ?? revokeError} />
    ${tokens.rows && tokens.rows.length > 0 && html`<${TableWrap} label="Tokens"><table aria-labelledby="tokens-heading">
      <caption class="hint">A token is shown once, when it is issued; the service keeps only its hash.</caption>
      <thead><tr><th scope="col">Token id</th><th scope="col">Issued</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
      <tbody>${tokens.rows.map((token) => html`<${RevocableRow} key=${token.id} columns=${4} revoked=${token.revoked_at !== null}
        cells=${html`<td><code class="uuid">${token.id}</code></td><td class="time">${formatDateTime(token.created_at)}</td>
          <td><${SecretState} revokedAt=${token.revoked_at} />${token.revoked_at ? ` ${formatDateTime(token.revoked_at)}` : ''}</td>`}
        label=${`Revoke token ${token.id}`} onError=${setRevokeError}
        run=${() => { setRevokeError(null); return api(session, 'DELETE', `/v1/admin/publisher-tokens/${token.id}`); }}
        onDone=${() => setTokensVersion((count) => count + 1)} />`)}</tbody>
    </table><//>`}
    <${Pager} list=${tokens} label="tokens" />
    <${ActionForm} title="Issue a token" submitLabel="Issue token" fields=${[]} createsOnce
      run=${(_values: Record<string, string>, idempotencyKey: string) =>
        api<{ data: { id: string; token: string } }>(session, 'POST', `${base}/tokens`, {}, { idempotencyKey })}
      onDone=${() => setTokensVersion((count) => count + 1)}
      done=${(answer: { data: { id: string; token: string } }) => html`<${ShownOnce} label=${`Token ${answer.data.id}`} value=${answer.data.token} />`} />`;
}

function RevenueShare({ session, base }: { session: Session; base: string }) {
  const { data: share, error } = useResource<RevenueShareSchedule>(session, `${base}/revenue-share`);
  return html`
    <h2>Revenue share</h2>
    <${ErrorMessage} error=${error} />
    ${share && html`<p>Earns <strong>${sharePercent(share.current.revenue_share)}</strong> of the valid spend on its placements today
      ${share.current.effective_from === null ? ' (the default: no share set).' : ` (since ${share.current.effective_from}).`}</p>`}
    ${share && share.scheduled.length > 0 && html`<${TableWrap} label="Scheduled revenue shares"><table aria-label="Scheduled revenue shares">
      <caption class="hint">Set for later days (PUT /v1/admin/publishers/{id}/revenue-share); each applies from its day until the next.</caption>
      <thead><tr><th scope="col">From (UTC)</th><th scope="col" class="num">Share</th></tr></thead>
      <tbody>${share.scheduled.map((row) => html`<tr key=${row.effective_from}><td class="time">${row.effective_from}</td><td class="num">${sharePercent(row.revenue_share)}</td></tr>`)}</tbody>
    </table><//>`}`;
}
