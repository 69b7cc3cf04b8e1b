import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, whileCurrent } from '../api.js';
import { FieldProblems } from '../fieldProblems.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, formatDateTime, Notice } from '../ui.js';
import type { IntegrationReview } from '../../../src/placements/integrationReviewRepository.js';
import { useUnsavedInput } from '../unsavedChanges.js';

/** Said on its own after the field's hint (the API's "is required" ran into it), and before anything is sent. */
const REASON_REQUIRED = new FieldProblems('A rejection needs a reason.', [{ path: 'reason', message: 'Enter a reason: a rejection needs one.' }]);

function ReviewCard({ review, session, onDecided }: { review: IntegrationReview; session: Session; onDecided(message: string): void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  // Gone with the card once decided; typed and not sent, leaving asks first (unsavedChanges.ts).
  useUnsavedInput(reason.trim() !== '');
  async function decide(decision: 'approve' | 'reject') {
    if (decision === 'reject' && reason.trim() === '') {
      setError(REASON_REQUIRED);
      return;
    }
    setError(null);
    try {
      await api(session, 'POST', `/v1/admin/integration-reviews/${review.id}/${decision}`, reason.trim() ? { reason } : {});
      onDecided(decision === 'approve' ? `Approved: ${review.placement_ids.join(', ')} certified.` : `Rejected the review of ${review.placement_ids.join(', ')}.`);
    } catch (failure) {
      setError(failure);
    }
  }
  // tabindex -1: focus lands here when the review before it was decided (ReviewQueuePage).
  return html`<li class="card" tabindex="-1" aria-label=${`Review of ${review.placement_ids.join(', ')}`}>
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
    return whileCurrent(api<{ data: IntegrationReview[] }>(session, 'GET', '/v1/admin/integration-reviews?status=pending&limit=500'), (answer) => setReviews(answer.data), setError);
  }, [version]);
  // A decided review leaves the list with the button that had focus, which would fall to <body>:
  // it goes to the review that took its place (the last one, when it was last), else the count.
  const decidedAt = useRef<number | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const count = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (reviews === null || decidedAt.current === null) return;
    const cards = list.current?.children;
    const next = cards && cards.length > 0 ? cards[Math.min(decidedAt.current, cards.length - 1)] : count.current;
    decidedAt.current = null;
    (next as HTMLElement | null)?.focus();
  }, [reviews]);
  const decided = (review: IntegrationReview) => (text: string) => {
    decidedAt.current = reviews?.indexOf(review) ?? 0;
    setMessage(text);
    setVersion((count) => count + 1);
  };
  return html`
    <${ErrorMessage} error=${error} />
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${reviews?.length === 0 && html`<p ref=${count} tabindex="-1">No review is waiting.</p>`}
    ${reviews && reviews.length > 0 && html`<p ref=${count} tabindex="-1">${reviews.length} waiting, oldest first.</p>
      <ol class="plain" ref=${list}>${reviews.map((review) => html`<${ReviewCard} key=${review.id} review=${review} session=${session} onDecided=${decided(review)} />`)}</ol>`}`;
}
