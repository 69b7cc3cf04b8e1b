import { html } from 'htm/preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { api } from '../api.js';
import { FieldProblems } from '../fieldProblems.js';
import type { Session } from '../session.js';
import type { LineItem } from './advertiserApi.js';

/**
 * Activating a campaign activates every line item of it that is not completed, a paused one
 * included: the spec's rule for POST campaigns/{id}/activate ("the campaign and every line item
 * become active"), which the API keeps. An ad-ops user who paused a line item expects it to stay
 * paused when the campaign goes live again, as an ad group or line item does in Google Ads or
 * DV360. So when the campaign has paused line items the console asks first, and offers to keep them
 * paused, which it does by pausing them again right after the activation (each PATCH status). Drafts
 * are not asked about: a new line item is meant to start with its campaign.
 */
export function pausedLineItems(items: LineItem[]): LineItem[] {
  return items.filter((item) => item.status === 'paused');
}

/** "Commuters", "Commuters and Evenings", "Commuters, Evenings and Weekends". */
function titlesOf(items: LineItem[]): string {
  const titles = items.map((item) => item.title);
  return titles.length <= 1 ? titles.join('') : `${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}`;
}

/** How the question was answered: keep the paused line items paused, activate them all, or not activate. */
export type ActivationAnswer = 'keep-paused' | 'all' | null;

/**
 * Activates the campaign, then pauses again the line items to keep paused. Answers what became of
 * them, for the status line ("Commuters stays paused."). A line item that could not be paused
 * again is active and may deliver: the error says so by name, so that it is paused by hand.
 */
export async function activateCampaign(session: Session, campaignId: string, paused: LineItem[], answer: 'keep-paused' | 'all'): Promise<string> {
  await api(session, 'POST', `/v1/advertiser/campaigns/${encodeURIComponent(campaignId)}/activate`, {});
  if (paused.length === 0) return '';
  if (answer === 'all') return ` ${titlesOf(paused)}, paused before, ${paused.length === 1 ? 'is' : 'are'} active too.`;
  const results = await Promise.allSettled(paused.map((item) => api(session, 'PATCH', `/v1/advertiser/line-items/${encodeURIComponent(item.id)}`, { status: 'paused' })));
  const failed = paused.filter((_, index) => results[index]!.status === 'rejected');
  if (failed.length > 0) {
    const reason: unknown = (results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
    // Shown as the page's error (ErrorMessage), which prints a FieldProblems' message as it is.
    throw new FieldProblems(`The campaign is active, but ${titlesOf(failed)} could not be paused again (${reason instanceof Error ? reason.message : String(reason)}) and ${failed.length === 1 ? 'is' : 'are'} delivering: pause ${failed.length === 1 ? 'it' : 'them'} on the campaign's page.`);
  }
  return ` ${titlesOf(paused)} ${paused.length === 1 ? 'stays' : 'stay'} paused.`;
}

/**
 * The question before activating a campaign with paused line items, in the page as the console's
 * other questions are: an alertdialog described by its sentence, the answer an ad-ops user expects
 * (keep them paused) first and focused, Escape for "not now".
 */
export function ActivationQuestion({ campaignName, paused, onAnswer }: { campaignName: string; paused: LineItem[]; onAnswer(answer: ActivationAnswer): void }) {
  const first = useRef<HTMLButtonElement>(null);
  const sentence = useId();
  useEffect(() => first.current?.focus(), []);
  const names = titlesOf(paused);
  const one = paused.length === 1;
  return html`<div class="confirm" role="alertdialog" aria-label=${`Activate ${campaignName}?`} aria-describedby=${sentence}
    onKeyDown=${(event: KeyboardEvent) => event.key === 'Escape' && onAnswer(null)}>
    <p id=${sentence}>${names} ${one ? 'is' : 'are'} paused. Activating ${campaignName} activates every line item of it (the API's rule), so ${one ? 'it' : 'they'} would deliver again.
      To keep ${one ? 'it' : 'them'} paused, the console pauses ${one ? 'it' : 'them'} again right after the activation (within a second; an ad may be served in between).</p>
    <button type="button" ref=${first} onClick=${() => onAnswer('keep-paused')}>Activate, keep ${names} paused</button>
    <button type="button" class="secondary" onClick=${() => onAnswer('all')}>Activate every line item</button>
    <button type="button" class="secondary" onClick=${() => onAnswer(null)}>Cancel</button>
  </div>`;
}
