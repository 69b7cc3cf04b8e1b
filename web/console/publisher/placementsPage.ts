import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, whileCurrent } from '../api.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, formatDateTime, Notice } from '../ui.js';
import { CertificationBadge, CertificationHistory } from '../placements.js';
import type { PublisherPlacement } from '../../../src/placements/publisherPlacementRepository.js';
import type { IntegrationReview } from '../../../src/placements/integrationReviewRepository.js';
import { TableWrap } from '../tableWrap.js';
import { useUnsavedInput } from '../unsavedChanges.js';

/**
 * A placement as a person picks it: by the name its publisher knows it by, with its id after it (the
 * id alone, a slug like `p-8f3a…`, is what the table shows in small under the name).
 */
function placementLabel(placement: PublisherPlacement) {
  return placement.name === null ? html`<code>${placement.id}</code>` : html`${placement.name} <span class="hint">(<code>${placement.id}</code>)</span>`;
}

/**
 * Reviews read for the page: the API's largest page, newest first, so that each placement's latest
 * review is among them (a publisher would need 500 later reviews for one to fall out). The table of
 * reviews shows the newest REVIEWS_LISTED of them.
 */
const REVIEWS_READ = 500;
const REVIEWS_LISTED = 20;

/**
 * A placement's latest review beside it: what is under way or what came of it, with the reason of a
 * rejection (what to fix before asking again), which the placement's certification history does
 * not hold (a rejection changes no certification).
 */
function LatestReview({ review }: { review: IntegrationReview | undefined }) {
  if (review === undefined) return html`<span class="hint">None</span>`;
  const when = review.status === 'pending' ? `requested ${formatDateTime(review.created_at)}` : formatDateTime(review.decided_at);
  return html`<span class=${`status status-${review.status}`}>${review.status}</span><br /><span class="hint">${when}</span>
    ${review.status === 'rejected' && review.decision_reason && html`<p class="review-reason" data-testid="review-reason">Reason: ${review.decision_reason}</p>`}`;
}

/**
 * The publisher's main page: each placement's certification (what demand it can get), its latest
 * review and its history, a review request for the uncertified ones, and the reviews asked for so far.
 */
export function PublisherPlacementsPage({ session }: { session: Session }) {
  const [placements, setPlacements] = useState<PublisherPlacement[] | null>(null);
  const [reviews, setReviews] = useState<IntegrationReview[]>([]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const [version, setVersion] = useState(0);
  // A review request ticked or noted and not sent: leaving asks first (unsavedChanges.ts).
  useUnsavedInput(chosen.length > 0 || note.trim() !== '');

  useEffect(() => {
    return whileCurrent(Promise.all([
      api<{ data: PublisherPlacement[] }>(session, 'GET', '/v1/publisher/placements'),
      api<{ data: IntegrationReview[] }>(session, 'GET', `/v1/publisher/integration-reviews?limit=${REVIEWS_READ}`),
    ]), ([found, asked]) => { setPlacements(found.data); setReviews(asked.data); }, setError);
  }, [version]);

  // The form goes once nothing is left to review, and the focus with it (to <body>): it goes to the
  // confirmation instead, which its status role also announces.
  const confirmation = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) confirmation.current?.focus();
  }, [message]);

  async function requestReview(event: Event) {
    event.preventDefault();
    setError(null);
    setMessage('');
    try {
      await api(session, 'POST', '/v1/publisher/integration-reviews', { placement_ids: chosen, ...(note.trim() ? { note } : {}) });
      const names = (placements ?? []).filter((placement) => chosen.includes(placement.id)).map((placement) => placement.name ?? placement.id);
      setMessage(`Review requested for ${names.join(', ')}. An operator will look at the integration check and decide.`);
      setChosen([]);
      setNote('');
      setVersion((count) => count + 1);
    } catch (failure) {
      setError(failure);
    }
  }

  const toggle = (id: string) => setChosen(chosen.includes(id) ? chosen.filter((item) => item !== id) : [...chosen, id]);
  // The API refuses certified placements and those already waiting in a review: offer neither.
  const waiting = new Set(reviews.filter((review) => review.status === 'pending').flatMap((review) => review.placement_ids));
  const reviewable = (placements ?? []).filter((placement) => placement.certification !== 'certified' && !waiting.has(placement.id));
  // Newest first: a placement's first review in the list is its latest.
  const latestReview = (id: string) => reviews.find((review) => review.placement_ids.includes(id));

  return html`
    <${ErrorMessage} error=${error} shownPaths=${['note']} />
    <div ref=${confirmation} tabIndex="-1">${message && html`<${Notice}>${message}</${Notice}>`}</div>
    ${placements === null && !error && html`<p role="status">Loading placements…</p>`}
    ${placements?.length === 0 && html`<p>No placement yet: ask your operator to register one.</p>`}
    ${placements && placements.length > 0 && html`<${TableWrap} label="Your placements"><table aria-label="Your placements">
      <caption class="hint">Certified placements get every kind of demand (tCPM too); the others get CPC and CPA only.</caption>
      <thead><tr><th scope="col">Placement</th><th scope="col">Certification</th><th scope="col">Latest review</th><th scope="col">Demand it gets</th><th scope="col">History</th><th scope="col">Integration</th></tr></thead>
      <tbody>${placements.map((placement) => html`<tr key=${placement.id} data-placement=${placement.id}>
        <th scope="row">${placement.name ?? placement.id}<br /><code class="hint">${placement.id}</code></th>
        <td><${CertificationBadge} state=${placement.certification} /></td>
        <td data-testid="latest-review"><${LatestReview} review=${latestReview(placement.id)} /></td>
        <td>${placement.eligible_price_models.join(', ')}</td>
        <td><details><summary>${placement.history.length} change${placement.history.length === 1 ? '' : 's'}</summary><${CertificationHistory} history=${placement.history} /></details></td>
        <td><a href=${`#/check?id=${encodeURIComponent(placement.id)}`}>Integration check<span class="visually-hidden"> of ${placement.id}</span></a></td>
      </tr>`)}</tbody>
    </table><//>`}
    ${reviewable.length > 0 && html`<form class="card" noValidate onSubmit=${requestReview} aria-labelledby="request-review">
      <h2 id="request-review">Request a review</h2>
      <p class="hint">An operator checks that your pixels fire from people's browsers (see the integration check) and certifies the placements.</p>
      <fieldset><legend>Placements to review</legend>
        ${reviewable.map((placement) => html`<label class="choice" key=${placement.id}>
          <input type="checkbox" checked=${chosen.includes(placement.id)} onChange=${() => toggle(placement.id)} /> ${placementLabel(placement)}</label>`)}
      </fieldset>
      <${Field} label="Note for the reviewer (optional)" path="note" error=${error} multiline value=${note} onInput=${setNote} hint="Where to see the integration, test pages…" />
      ${chosen.length === 0 && html`<p id="review-choose" class="hint">Tick at least one placement above to request its review.</p>`}
      <button type="submit" disabled=${chosen.length === 0} aria-describedby=${chosen.length === 0 ? 'review-choose' : undefined}>Request review</button>
    </form>`}
    ${reviews.length > 0 && html`<h2>Your reviews</h2><${TableWrap} label="Your reviews"><table aria-label="Your reviews">
      <thead><tr><th scope="col">Requested</th><th scope="col">Placements</th><th scope="col">Status</th><th scope="col">Reason</th></tr></thead>
      <tbody>${reviews.slice(0, REVIEWS_LISTED).map((review) => html`<tr key=${review.id}><td class="time">${formatDateTime(review.created_at)}</td><td>${review.placement_ids.join(', ')}</td>
        <td><span class=${`status status-${review.status}`}>${review.status}</span></td><td>${review.decision_reason ?? ''}</td></tr>`)}</tbody>
    </table><//>`}`;
}
