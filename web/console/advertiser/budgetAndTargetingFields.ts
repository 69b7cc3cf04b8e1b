import { html } from 'htm/preact';
import { useId } from 'preact/hooks';
import { Field, Select } from '../ui.js';
import { listOf } from './lineItemEdits.js';

/**
 * The fields a line item's page edits that a new line item is given too (*New campaign*, *Add a
 * line item*): the lifetime budget and pacing, the countries and semantic matching. One home for
 * each, so the two places label, hint and mark them alike; each form keeps its own state and
 * says at which API path (`path*`) a refusal of the field is shown.
 */
/** The pacings a budget offers, and how a line item's is said where it cannot be edited (lineItemFacts.ts). */
export const pacings = [['even', 'Even: spread over the UTC day'], ['asap', 'As soon as possible']] as const;

interface Bound {
  value: string;
  onInput(value: string): void;
}

export function LifetimeAndPacingFields({ lifetime, pacing, paths, error }: {
  lifetime: Bound; pacing: Bound; paths: { lifetime: string; pacing: string }; error: unknown;
}) {
  return html`<${Field} label="Lifetime budget (optional)" path=${paths.lifetime} hint="A total over the line item's life, same currency; empty: none" ...${lifetime} error=${error} />
    <${Select} label="Pacing" path=${paths.pacing} options=${pacings} ...${pacing} error=${error} />`;
}

/** Countries to run in and to avoid (comma-separated ISO 3166-1 codes); a refusal names the entry ("Country 1 (UK) …"). */
export function CountryFields({ include, exclude, paths, error }: {
  include: Bound; exclude: Bound; paths: { include: string; exclude: string }; error: unknown;
}) {
  return html`<${Field} label="Countries to run in" path=${paths.include} hint="ISO 3166-1 codes, e.g. DE, AT; from the reader's IP address"
      list=${{ noun: 'Country', entries: listOf(include.value) ?? [] }} ...${include} error=${error} />
    <${Field} label="Countries to avoid" path=${paths.exclude} list=${{ noun: 'Country', entries: listOf(exclude.value) ?? [] }} ...${exclude} error=${error} />`;
}

/** Semantic matching's opt-in box and its optional threshold (read by lineItemEdits.ts semanticPart). */
export function SemanticFields({ enabled, onEnabled, minSimilarity, path, error }: {
  enabled: boolean; onEnabled(enabled: boolean): void; minSimilarity: Bound; path: string; error: unknown;
}) {
  const hintId = useId();
  return html`<div class="field checkbox">
      <label><input type="checkbox" checked=${enabled} aria-describedby=${hintId}
        onChange=${(event: Event) => onEnabled((event.currentTarget as HTMLInputElement).checked)} /> Semantic matching</label>
      <small id=${hintId} class="hint">Also shown where the conversation means what the keywords and creatives say, without the exact words (English only).</small>
    </div>
    <div class="grid">
      <${Field} label="Minimum similarity (optional)" path=${path} hint="0 to 1; empty: the service's default, 0.55; higher: fewer, closer matches" ...${minSimilarity} error=${error} />
    </div>`;
}
