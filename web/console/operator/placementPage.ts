import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, whileCurrent } from '../api.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field } from '../ui.js';
import { FieldProblems } from '../fieldProblems.js';
import { CertificationBadge, CertificationHistory, IntegrationCheckView, recentImpressionsPath, type IntegrationCheck } from '../placements.js';
import type { Placement } from '../../../src/placements/placementRepository.js';
import { mayLeave, useUnsavedInput } from '../unsavedChanges.js';

/** Said before anything is sent: the reason is shown to the publisher whose tCPM revenue stops. */
const REVOKE_REASON_REQUIRED = new FieldProblems('A revocation needs a reason.', [{ path: 'reason', message: 'Enter a reason: a revocation needs one.' }]);

/**
 * A placement looked up by id: its certification and history, certify or revoke with a reason, and its
 * integration check. A revocation cuts the publisher's impression-priced demand the next second, so
 * it takes a reason and is asked twice (as a key's revocation is); the answer takes the focus.
 */
export function PlacementPage({ session, route }: { session: Session; route: Route }) {
  const id = route.params.get('id') ?? '';
  const [lookup, setLookup] = useState(id);
  const [placement, setPlacement] = useState<Placement | null>(null);
  /** Its publisher's name, so the page names the publisher rather than its id (null while unread or when it cannot be read). */
  const [publisherName, setPublisherName] = useState<string | null>(null);
  const [check, setCheck] = useState<IntegrationCheck | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const [asking, setAsking] = useState(false);
  const actions = useRef<HTMLFormElement>(null);
  const status = useRef<HTMLDivElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  // A typed reason is asked about before leaving (unsavedChanges.ts), *Look up* of another placement
  // included; the id to look up is an address, not input.
  useUnsavedInput(reason.trim() !== '');

  useEffect(() => {
    // Another placement's page: the last one's answer, question and reason are not about it (rev45 R4:
    // a reason typed for one placement was sent with the next one's revocation, to its publisher).
    setReason('');
    setPlacement(null);
    setPublisherName(null);
    setCheck(null);
    setDone('');
    setError(null);
    setAsking(false);
    if (!id) return;
    const segment = encodeURIComponent(id);
    const withPublisher = async (found: { data: Placement }) => ({
      placement: found.data,
      publisher: await api<{ data: { name: string } }>(session, 'GET', `/v1/admin/publishers/${encodeURIComponent(found.data.publisher_id)}`).then((answer) => answer.data.name, () => null),
    });
    return whileCurrent(Promise.all([
      api<{ data: Placement }>(session, 'GET', `/v1/admin/placements/${segment}`).then(withPublisher),
      api<{ data: IntegrationCheck }>(session, 'GET', recentImpressionsPath('/v1/admin', id)),
    ]), ([found, recent]) => { setPlacement(found.placement); setPublisherName(found.publisher); setCheck(recent.data); }, setError);
  }, [id]);

  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  useEffect(() => {
    if (done) status.current?.focus();
  }, [done]);
  useEffect(() => {
    if (error) actions.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);

  function askToRevoke() {
    setDone('');
    if (!reason.trim()) return setError(REVOKE_REASON_REQUIRED);
    setError(null);
    setAsking(true);
  }

  async function change(action: 'certify' | 'revoke') {
    setError(null);
    setDone('');
    setAsking(false);
    try {
      const answer = await api<{ data: Placement }>(session, 'POST', `/v1/admin/placements/${encodeURIComponent(id)}/${action}`, reason.trim() ? { reason } : {});
      setPlacement(answer.data);
      setDone(action === 'certify' ? 'Certified: tCPM demand may now serve here.' : 'Revoked: only CPC and CPA demand serves here now.');
      setReason('');
    } catch (failure) {
      setError(failure);
    }
  }

  function lookUp(event: Event) {
    event.preventDefault();
    const next = lookup.trim();
    // go() is the console's own move, which the router does not ask about: another placement drops the typed reason.
    if (next !== id && !mayLeave()) return;
    setError(null);
    go('placements', { id: next });
  }

  return html`
    <form class="card" onSubmit=${lookUp}>
      <${Field} label="Placement id" value=${lookup} onInput=${setLookup} />
      <button type="submit">Look up</button>
    </form>
    <${ErrorMessage} error=${error} shownPaths=${['reason']} />
    ${done && html`<div class="notice" role="status" tabindex="-1" ref=${status}>${done}</div>`}
    ${placement && html`
      <h2>${placement.name ?? placement.id} <${CertificationBadge} state=${placement.certification} /></h2>
      <p>Placement <code>${placement.id}</code> of publisher <a href=${`#/publisher?${new URLSearchParams({ id: placement.publisher_id })}`}>${publisherName ?? html`<code>${placement.publisher_id}</code>`}</a>.</p>
      <form class="card" noValidate onSubmit=${(event: Event) => event.preventDefault()} ref=${actions}>
        <${Field} label="Reason" path="reason" error=${error} value=${reason} onInput=${setReason} hint="Kept in the placement's history and shown to its publisher." />
        <div class="actions">
          ${placement.certification !== 'certified' && html`<button type="button" onClick=${() => change('certify')}>Certify</button>`}
          ${placement.certification === 'certified' && html`<button type="button" class="secondary" aria-expanded=${asking} onClick=${() => (asking ? setAsking(false) : askToRevoke())}>Revoke certification</button>`}
        </div>
        ${asking && html`<div class="confirm" role="group" aria-label="Revoke certification">
          <p>Revoke the certification of <code>${placement.id}</code>? tCPM demand stops serving here at once, and its publisher sees your reason.</p>
          <button type="button" ref=${confirm} onClick=${() => change('revoke')}>Yes, revoke</button>
          <button type="button" class="secondary" onClick=${() => setAsking(false)}>Cancel</button>
        </div>`}
      </form>
      <h2>History</h2>
      <${CertificationHistory} history=${placement.history} />`}
    ${check && html`<h2>Integration check</h2><${IntegrationCheckView} check=${check} />`}`;
}
