import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, Notice } from '../ui.js';
import { CertificationBadge, CertificationHistory, IntegrationCheckView, recentImpressionsPath, type IntegrationCheck, type Placement } from '../placements.js';

/** A placement looked up by id: its certification and history, certify or revoke with a reason, and its integration check. */
export function PlacementPage({ session, route }: { session: Session; route: Route }) {
  const id = route.params.get('id') ?? '';
  const [lookup, setLookup] = useState(id);
  const [placement, setPlacement] = useState<Placement | null>(null);
  const [check, setCheck] = useState<IntegrationCheck | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');

  useEffect(() => {
    setPlacement(null);
    setCheck(null);
    if (!id) return;
    const segment = encodeURIComponent(id);
    Promise.all([
      api<{ data: Placement }>(session, 'GET', `/v1/admin/placements/${segment}`),
      api<{ data: IntegrationCheck }>(session, 'GET', recentImpressionsPath('/v1/admin', id)),
    ]).then(([found, recent]) => { setPlacement(found.data); setCheck(recent.data); }, setError);
  }, [id]);

  async function change(action: 'certify' | 'revoke') {
    setError(null);
    setDone('');
    try {
      const answer = await api<{ data: Placement }>(session, 'POST', `/v1/admin/placements/${encodeURIComponent(id)}/${action}`, reason.trim() ? { reason } : {});
      setPlacement(answer.data);
      setDone(action === 'certify' ? 'Certified: tCPM demand may now serve here.' : 'Revoked: only CPC and CPA demand serves here now.');
      setReason('');
    } catch (failure) {
      setError(failure);
    }
  }

  return html`
    <form class="card" onSubmit=${(event: Event) => { event.preventDefault(); setError(null); go('placements', { id: lookup.trim() }); }}>
      <${Field} label="Placement id" value=${lookup} onInput=${setLookup} />
      <button type="submit">Look up</button>
    </form>
    <${ErrorMessage} error=${error} shownPaths=${['reason']} />
    ${done && html`<${Notice}>${done}</${Notice}>`}
    ${placement && html`
      <h2>${placement.name ?? placement.id} <${CertificationBadge} state=${placement.certification} /></h2>
      <p>Placement <code>${placement.id}</code> of publisher <code>${placement.publisher_id}</code>.</p>
      <form class="card" noValidate onSubmit=${(event: Event) => event.preventDefault()}>
        <${Field} label="Reason" path="reason" error=${error} value=${reason} onInput=${setReason} hint="Kept in the placement's history and shown to its publisher." />
        <div class="actions">
          ${placement.certification !== 'certified' && html`<button type="button" onClick=${() => change('certify')}>Certify</button>`}
          ${placement.certification === 'certified' && html`<button type="button" class="secondary" onClick=${() => change('revoke')}>Revoke certification</button>`}
        </div>
      </form>
      <h2>History</h2>
      <${CertificationHistory} history=${placement.history} />`}
    ${check && html`<h2>Integration check</h2><${IntegrationCheckView} check=${check} />`}`;
}
