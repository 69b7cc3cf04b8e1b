import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, formatDateTime, Notice } from '../ui.js';
import type { IntegrationReview } from '../placements.js';

function ReviewCard({ review, session, onDecided }: { review: IntegrationReview; session: Session; onDecided(message: string): void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  async function decide(decision: 'approve' | 'reject') {
    setError(null);
    try {
      await api(session, 'POST', `/v1/admin/integration-reviews/${review.id}/${decision}`, reason.trim() ? { reason } : {});
      onDecided(decision === 'approve' ? `Approved: ${review.placement_ids.join(', ')} certified.` : `Rejected the review of ${review.placement_ids.join(', ')}.`);
    } catch (failure) {
      setError(failure);
    }
  }
  return html`<li class="card" aria-label=${`Review of ${review.placement_ids.join(', ')}`}>
    <p>Requested ${formatDateTime(review.created_at)} by publisher <a href=${`#/publisher?${new URLSearchParams({ id: review.publisher_id })}`}>${review.publisher_name}</a></p>
    <p>Placements: ${review.placement_ids.map((id, index) => html`${index > 0 ? ', ' : ''}<a href=${`#/placements?id=${encodeURIComponent(id)}`}>${id}</a>`)}<span class="hint"> (open one to see its integration check)</span></p>
    ${review.note && html`<p>Note: ${review.note}</p>`}
    <${Field} label="Reason" path="reason" error=${error} value=${reason} onInput=${setReason} hint="Required to reject; shown to the publisher." />
    <${ErrorMessage} error=${error} shownPaths=${['reason']} />
    <div class="actions">
      <button type="button" onClick=${() => decide('approve')}>Approve and certify</button>
      <button type="button" class="secondary" onClick=${() => decide('reject')}>Reject</button>
    </div>
  </li>`;
}

/** The integration-review queue, oldest first: the order in which reviews should be handled. */
export function ReviewQueuePage({ session }: { session: Session }) {
  const [reviews, setReviews] = useState<IntegrationReview[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<{ data: IntegrationReview[] }>(session, 'GET', '/v1/admin/integration-reviews?status=pending&limit=500').then((answer) => setReviews(answer.data), setError);
  }, [version]);
  const decided = (text: string) => {
    setMessage(text);
    setVersion((count) => count + 1);
  };
  return html`
    <${ErrorMessage} error=${error} />
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${reviews?.length === 0 && html`<p>No review is waiting.</p>`}
    ${reviews && reviews.length > 0 && html`<p>${reviews.length} waiting, oldest first.</p>
      <ol class="plain">${reviews.map((review) => html`<${ReviewCard} key=${review.id} review=${review} session=${session} onDecided=${decided} />`)}</ol>`}`;
}
