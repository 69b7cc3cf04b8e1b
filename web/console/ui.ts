import { html } from 'htm/preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiFailure } from './api.js';
import { FieldProblems, itemIndex } from './fieldProblems.js';

interface FieldProps {
  label: string;
  value: string;
  onInput(value: string): void;
  /** The API's detail path of this field (campaign.name), to show its 422 message beside it. */
  path?: string;
  error?: unknown;
  type?: string;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
  autocomplete?: string;
  /**
   * A field holding a list (comma-separated keywords): the noun of one entry and the entries as sent,
   * to name the entry a detail at `path.N` is about ("Keyword 2 (p A) …"). The entries must be split
   * from the typed text as the body was (lineItemEdits.ts `listOf`), or N names another entry.
   */
  list?: { noun: string; entries: string[] };
}

/**
 * A hint or a problem as a sentence of its own. They are shown one under the other and read one
 * after the other (aria-describedby), so "Up to 30 characters" and "is required" ran into one
 * ("Up to 30 characters is required", "For example 50 1,000 could mean …"). The API's details are
 * predicates of their field ("is required", "must be …"): said of it by its label.
 */
function sentence(text: string): string {
  const capitalized = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}

/** A detail's message said of its subject when it is a predicate ("is required"), else as it is. */
function saidOf(subject: string, message: string): string {
  return sentence(/^(is|are|must|may|cannot|needs|takes|has)\b/.test(message) ? `${subject} ${message}` : `${subject}: ${message}`);
}

/** An entry as named in a sentence: long ones cut (a 150-character keyword). */
function quoted(entry: string): string {
  return entry.length > 24 ? `${entry.slice(0, 20)}…` : entry;
}

/** The problem shown under a field (its own detail and those of its list's entries), said of its label; for a group of boxes too. */
export function problemOf(props: { label: string; path?: string; error?: unknown; list?: FieldProps['list'] }): string | undefined {
  if (!props.path || !(props.error instanceof FieldProblems)) return undefined;
  // "Name (optional) is required" would be odd: the label's parenthesis is for the form.
  const own = props.error.detailAt(props.path);
  const problems = own === undefined ? [] : [/^(is|are|must|may|cannot|needs|takes|has)\b/.test(own) ? saidOf(props.label.replace(/\s*\([^)]*\)$/, ''), own) : sentence(own)];
  for (const { index, message } of props.error.itemDetailsAt(props.path)) {
    const entry = props.list?.entries[index];
    problems.push(saidOf(`${props.list?.noun ?? 'Entry'} ${index + 1}${entry === undefined ? '' : ` (${quoted(entry)})`}`, message));
  }
  return problems.length > 0 ? problems.join(' ') : undefined;
}

/** A labelled input; a problem with it (the API's 422 details, or the console's own) is shown under it and announced. */
export function Field(props: FieldProps) {
  const id = useId();
  const message = problemOf(props);
  const describedBy = [props.hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value: props.value,
    required: props.required,
    'aria-invalid': message ? 'true' : undefined,
    'aria-describedby': describedBy,
    autocomplete: props.autocomplete ?? 'off',
    onInput: (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value),
  };
  return html`<div class="field">
    <label for=${id}>${props.label}</label>
    ${props.multiline ? html`<textarea ...${common} rows="3"></textarea>` : html`<input type=${props.type ?? 'text'} ...${common} />`}
    ${props.hint && html`<small id=${`${id}-hint`} class="hint">${sentence(props.hint)}</small>`}
    ${message && html`<small id=${`${id}-error`} class="field-error">${message}</small>`}
  </div>`;
}

interface SelectProps {
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onInput(value: string): void;
  path?: string;
  error?: unknown;
}

export function Select(props: SelectProps) {
  const id = useId();
  const message = problemOf(props);
  return html`<div class="field">
    <label for=${id}>${props.label}</label>
    <select id=${id} value=${props.value} aria-invalid=${message ? 'true' : undefined} aria-describedby=${message ? `${id}-error` : undefined}
      onChange=${(event: Event) => props.onInput((event.currentTarget as HTMLSelectElement).value)}>
      ${props.options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
    </select>
    ${message && html`<small id=${`${id}-error`} class="field-error">${message}</small>`}
  </div>`;
}

/**
 * A store the service cannot reach (503 `unavailable`: its database, or its event store for
 * reports) in words a person acts on: the API refused before changing anything, and it passes.
 * So does a service that does not answer at all (stopped for a restart or a deploy, or this
 * computer offline: con43 saw a page stay on a bare "did not answer" with nothing to press once it
 * was back). A read that got no answer is asked again (Retry); a write may have been done with its
 * answer lost on the way back. A create sent with an Idempotency-Key (*Create campaign*, *Add line
 * item*, *Add creative*, the operator's five creates: submissionKey.ts) is sent again safely, so it offers Retry too; any other write pressed
 * again could be done twice (rev43 R9): it says so, and to look before trying again.
 */
/** A write that got no answer and went without an Idempotency-Key: sending it again could do it twice. */
function isUnsafeToResend(error: ApiFailure): boolean {
  return error.code === 'network' && error.method !== 'GET' && !error.resendable;
}

function unavailableText(error: unknown): string | undefined {
  if (!(error instanceof ApiFailure)) return undefined;
  if (isUnsafeToResend(error)) {
    return 'The service did not answer, so this may have been saved or not. Before trying again, look whether it was, in its list or by reloading the page: pressing the button again could save it twice.';
  }
  if (error.code === 'network' && error.method !== 'GET') {
    return 'The service did not answer, so this may have been saved or not. Retry sends it again: it is saved once either way.';
  }
  if (error.code === 'network') return 'The service did not answer: it may be restarting, or this computer may be offline. Try again in a few seconds.';
  if (error.status !== 503 || error.code !== 'unavailable') return undefined;
  const store = /event store/.test(error.message) ? 'its event store, where reports come from' : 'its database';
  // This request changed nothing, but an earlier send of the same key (whose answer was lost) may
  // still be saved (rev44b R3): say only what holds either way.
  if (error.resendable) return `The service cannot reach ${store} right now. Retry in a few seconds: it is saved once either way.`;
  return `The service cannot reach ${store} right now; nothing was changed. Try again in a few seconds.`;
}

/**
 * A ref for a form (or its actions): when a refusal comes, the focus moves to the first field it
 * marks (aria-invalid), not left on the button below the form.
 */
export function useFocusOnRefusal<T extends HTMLElement>(error: unknown) {
  const container = useRef<T>(null);
  useEffect(() => {
    if (error) container.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  return container;
}

/**
 * The message above a form. The API's 422 says only "request is invalid", its reasons being in the
 * details: when a detail is shown beside its field, the message points there instead (con43:
 * a bare "request is invalid" above the button read as the whole answer). The console's own
 * messages (an amount it could not read) already say what happened, and stay.
 */
function refusalMessage(error: FieldProblems, unshown: number): string {
  const marked = error.details.length - unshown;
  if (!(error instanceof ApiFailure) || error.status !== 422 || marked === 0) return error.message;
  // Direction-free: the message is above the fields on some forms and below them on others.
  const where = marked === 1 ? 'the field marked with its reason' : 'the fields marked with their reasons';
  return unshown === 0 ? `See ${where}.` : `See ${where}, and the problems listed here.`;
}

/**
 * The error of the last action: its message, and the field problems no field on the form shows
 * (so nothing the API or the console's own checks said is hidden). `retry` asks again (a page's
 * read, a create's submission with its key), offered when the service says a store is unavailable,
 * which passes by itself, or did not answer; never for a write that could be done twice.
 */
export function ErrorMessage({ error, shownPaths = [], retry }: { error: unknown; shownPaths?: string[]; retry?: () => void }) {
  if (!error) return null;
  const unavailable = unavailableText(error);
  if (unavailable !== undefined) {
    const offered = retry && !(error instanceof ApiFailure && isUnsafeToResend(error));
    return html`<div class="error" role="alert">
      <p>${unavailable}</p>
      ${offered && html`<button type="button" onClick=${retry}>Retry</button>`}
    </div>`;
  }
  // A field shows its own details and those of its list's entries (`keywords.include.0`).
  const shown = (path: string) => shownPaths.some((field) => field === path || itemIndex(path, field) !== undefined);
  const other = error instanceof FieldProblems ? error.details.filter((detail) => !shown(detail.path)) : [];
  const message = error instanceof FieldProblems ? refusalMessage(error, other.length) : String(error);
  return html`<div class="error" role="alert">
    <p>${message}</p>
    ${other.length > 0 && html`<ul>${other.map((detail) => html`<li><code>${detail.path || '(body)'}</code>: ${detail.message}</li>`)}</ul>`}
  </div>`;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return html`<div class="notice" role="status">${children}</div>`;
}

/** A secret the API shows once (a new key or token), with the warning that it will not be shown again. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return html`<div class="notice" role="status">
    <p><strong>${label}</strong> — copy it now: the service keeps only its hash and will not show it again.</p>
    <p><code class="secret">${value}</code></p>
  </div>`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** A count as every table shows it: with thousands separators (4,242). */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * A dollar amount as a page shows it: to the cent, one format in every cell ($6.62 beside $20.00).
 * An amount above zero that rounds to no cent reads "under $0.01", never a $0.00 that hides it.
 * The report tables show the API's exact figures instead (they are what the CSV holds).
 */
export function usd(value: number): string {
  if (value > 0 && value < 0.005) return 'under $0.01';
  return '$' + value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
