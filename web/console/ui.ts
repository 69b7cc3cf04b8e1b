import { html } from 'htm/preact';
import { useId } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { FieldProblems } from './fieldProblems.js';

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

function problemOf(props: { label: string; path?: string; error?: unknown }): string | undefined {
  const message = props.path && props.error instanceof FieldProblems ? props.error.detailAt(props.path) : undefined;
  if (message === undefined) return undefined;
  // "Name (optional) is required" would be odd: the label's parenthesis is for the form.
  return sentence(/^(is|are|must|may|cannot|needs|takes|has)\b/.test(message) ? `${props.label.replace(/\s*\([^)]*\)$/, '')} ${message}` : message);
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
 * The error of the last action: its message, and the field problems no field on the form shows
 * (so nothing the API or the console's own checks said is hidden).
 */
export function ErrorMessage({ error, shownPaths = [] }: { error: unknown; shownPaths?: string[] }) {
  if (!error) return null;
  const message = error instanceof FieldProblems ? error.message : String(error);
  const other = error instanceof FieldProblems ? error.details.filter((detail) => !shownPaths.includes(detail.path)) : [];
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

/**
 * A dollar amount as a page shows it: to the cent, one format in every cell ($6.62 beside $20.00).
 * An amount above zero that rounds to no cent reads "under $0.01", never a $0.00 that hides it.
 * The report tables show the API's exact figures instead (they are what the CSV holds).
 */
export function usd(value: number): string {
  if (value > 0 && value < 0.005) return 'under $0.01';
  return '$' + value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
