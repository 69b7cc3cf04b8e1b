import { html } from 'htm/preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../session.js';
import type { LineItem } from './advertiserApi.js';

/**
 * Activating a campaign activates every line item of it that is not completed, a paused one
 * included: the spec's rule for POST campaigns/{id}/activate ("the campaign and every line item
 * become active"), the API's default. An ad-ops user who paused a line item expects it to stay
 * paused when the campaign goes live again, as an ad group or line item does in Google Ads or
 * DV360. So when the campaign has paused line items the console asks first, and offers to keep them
 * paused: the same activation with `keep_line_items_paused: true`, one transaction, so no serve ever
 * sees them active. Drafts are not asked about: a new line item is meant to start with its campaign.
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
 * Activates the campaign, keeping its paused line items paused when so answered. Answers what became
 * of them, for the status line ("Commuters stays paused."), and says so when no line item is left
 * active: the campaign is then active but serves nothing.
 */
export async function activateCampaign(session: Session, campaignId: string, paused: LineItem[], answer: 'keep-paused' | 'all'): Promise<string> {
  const keep = answer === 'keep-paused' && paused.length > 0;
  const activated = await api<{ data: { line_items: LineItem[] } }>(session, 'POST', `/v1/advertiser/campaigns/${encodeURIComponent(campaignId)}/activate`, keep ? { keep_line_items_paused: true } : {});
  if (paused.length === 0) return '';
  if (!keep) return ` ${titlesOf(paused)}, paused before, ${paused.length === 1 ? 'is' : 'are'} active too.`;
  const idle = activated.data.line_items.every((item) => item.status !== 'active');
  return ` ${titlesOf(paused)} ${paused.length === 1 ? 'stays' : 'stay'} paused.${idle ? ' No line item is active: nothing is served until one is activated.' : ''}`;
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
    <p id=${sentence}>${names} ${one ? 'is' : 'are'} paused. Keep ${one ? 'it' : 'them'} paused when ${campaignName} goes live, or activate every line item of it, ${names} included?</p>
    <button type="button" ref=${first} onClick=${() => onAnswer('keep-paused')}>Activate, keep ${names} paused</button>
    <button type="button" class="secondary" onClick=${() => onAnswer('all')}>Activate every line item</button>
    <button type="button" class="secondary" onClick=${() => onAnswer(null)}>Cancel</button>
  </div>`;
}
