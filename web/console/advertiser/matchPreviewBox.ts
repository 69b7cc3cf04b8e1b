import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field } from '../ui.js';
import type { LineItem } from './advertiserApi.js';
import { frequencyCapLimit } from './lineItemEdits.js';
import { useChangedSinceSaved } from '../unsavedChanges.js';

/** POST /v1/advertiser/line-items/{id}/match-preview's answer (openapi.yaml MatchPreview), the fields shown. */
interface MatchPreview {
  would_match: boolean;
  matched_by: 'keywords' | 'similarity' | 'untargeted' | null;
  keywords: { include_found: string[]; exclude_found: string[] };
  similarity: { enabled: boolean; similarity: number | null; min_similarity: number; matches: boolean };
  brand_safety: { topic: string; judged_by: 'phrase' | 'similarity' } | null;
  held_back: string[];
  depends_on: string[];
}

/** held_back's reasons: what stops the line item now, whatever the conversation. */
const heldBackText: Record<string, string> = {
  not_in_index: 'it is not being served at all now: its campaign or the line item is not active, or it has no creative',
  flight: "it is outside its campaign's flight (the start and end dates)",
  budget: 'its budget for now is spent (the daily budget or what even pacing has released so far today, its lifetime budget, or this month\'s ceiling)',
  outstanding_serves:
    'ads of it served in the last minutes, still waiting for their reader to see or click them, hold what is left of its budget for up to 10 minutes (other publishers may still show it)',
  language: 'the conversation is in a language it does not target',
  daypart: 'it is outside its dayparts (the hours of the week it runs)',
};

/** depends_on's parts: what the serve's placement, reader or address decides, which no preview can. */
function dependsOnText(part: string, item: LineItem): string {
  switch (part) {
    case 'placements': return 'the placement (it runs on some placements only)';
    case 'certification': return 'the placement being certified (a CPM line item runs on certified placements only)';
    case 'countries': return "the reader's country";
    // The cap's rule is what leaves a capped line item undelivered on a publisher without user ids.
    case 'frequency_cap': return item.frequency_cap === null
      ? 'how often the reader has seen it (its frequency cap)'
      : `whether the serve sends the reader's user id (without one it is never shown) and how often that reader has seen it (${frequencyCapLimit(item.frequency_cap)})`;
    default: return part;
  }
}

const list = (items: string[]) => items.map((item) => `“${item}”`).join(', ');

/** What matched, or that nothing did, in words. */
function matchLine(answer: MatchPreview): string {
  const { keywords, similarity } = answer;
  if (keywords.exclude_found.length > 0) return `Keywords to avoid found: ${list(keywords.exclude_found)}; an avoided keyword always wins.`;
  if (answer.matched_by === 'keywords') return `Keywords found: ${list(keywords.include_found)}.`;
  if (answer.matched_by === 'untargeted') return 'It has no keywords to match and no similarity matching: every conversation matches.';
  if (answer.matched_by === 'similarity') return 'None of its keywords is in the conversation, but it is similar enough in meaning.';
  return 'Nothing matched: none of its keywords is in the conversation, and it is not similar enough in meaning.';
}

function similarityLine({ similarity }: MatchPreview): string {
  if (!similarity.enabled) return 'Similarity matching is off for this line item (its targeting does not ask for it).';
  if (similarity.similarity === null) return 'Similarity could not be judged: semantic matching is not running on this service, or the line item is not being served.';
  const verdict = similarity.matches ? 'at or above' : 'below';
  return `Similarity ${similarity.similarity.toFixed(3)}, ${verdict} its minimum of ${similarity.min_similarity}.`;
}

/**
 * "Would it show next to …?": a query and an answer sent to the match preview, and the answer in
 * plain words (matched, brand safety, what holds the line item back, what only a real serve knows).
 * Nothing is served or billed by asking. A conversation typed and not yet asked about is asked about
 * before leaving the page (unsavedChanges.ts); once answered, it is as good as saved.
 */
export function MatchPreviewBox({ session, item }: { session: Session; item: LineItem }) {
  const [query, setQuery] = useState('');
  const [response, setResponse] = useState('');
  const [answer, setAnswer] = useState<MatchPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const unasked = useChangedSinceSaved({ query, response });
  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    setAnswer(null);
    // Asked is what was typed when the button was pressed; typing meanwhile stays unasked.
    const asking = unasked.saved;
    try {
      const path = `/v1/advertiser/line-items/${encodeURIComponent(item.id)}/match-preview`;
      setAnswer((await api<{ data: MatchPreview }>(session, 'POST', path, { context: { query, response } })).data);
      asking();
    } catch (failure) {
      setError(failure);
    }
  }
  return html`<form class="card" noValidate aria-label=${`Would ${item.title} show next to a conversation?`} onSubmit=${submit}>
    <h3>Would it show next to…?</h3>
    <p class="hint">Type a reader's question and the assistant's answer: the service says whether this line item could be shown beside them, and why. Nothing is served or billed.</p>
    <${Field} label="Question" path="context.query" value=${query} onInput=${setQuery} error=${error} multiline />
    <${Field} label="Answer" path="context.response" value=${response} onInput=${setResponse} error=${error} multiline />
    <${ErrorMessage} error=${error} shownPaths=${['context.query', 'context.response']} />
    ${answer && html`<div class=${answer.would_match ? 'notice' : 'notice stopped'} role="status" data-testid="match-preview">
      <p><strong>${answer.would_match ? 'Yes: it could be shown next to this conversation.' : 'No: it would not be shown next to this conversation.'}</strong></p>
      <ul>
        <li>${matchLine(answer)}</li>
        <li>${similarityLine(answer)}</li>
        ${answer.brand_safety && html`<li>Brand safety refuses every ad here: the conversation is about ${answer.brand_safety.topic.replaceAll('_', ' ')} (${answer.brand_safety.judged_by === 'phrase' ? 'a phrase found' : 'judged by meaning'}).</li>`}
        ${answer.held_back.map((reason) => html`<li>Held back: ${heldBackText[reason] ?? reason}.</li>`)}
      </ul>
      ${answer.depends_on.length > 0 && html`<p>Not judged here, as only a real serve knows it: ${answer.depends_on.map((part) => dependsOnText(part, item)).join('; ')}.</p>`}
    </div>`}
    <button type="submit">Ask</button>
  </form>`;
}
