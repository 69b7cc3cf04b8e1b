import { html } from 'htm/preact';
import { useId } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { Route } from './route.js';
import { Field } from './ui.js';
import { addDays, daysBetween, todayUtc } from '../../src/utcDays.js';

/** The reporting routes' limit (the spec's): date_to minus date_from at most 92 days. */
export const MAX_WINDOW_DAYS = 92;

/** The API's detail paths of the two dates, which the form's fields show (for a page's ErrorMessage `shownPaths`). */
export const windowPaths = ['date_from', 'date_to'];

export interface DateWindow {
  from: string;
  to: string;
}

/** The window an address names (#/…?from=…&to=…); what it leaves out, the last seven UTC days, today included. */
export function windowInAddress(route: Route): DateWindow {
  const today = todayUtc();
  return { from: route.params.get('from') ?? addDays(today, -6), to: route.params.get('to') ?? today };
}

interface DateWindowFormProps {
  /** The dates as typed, which the page keeps (the report's address can change them). */
  from: string;
  to: string;
  onFrom(value: string): void;
  onTo(value: string): void;
  /** The last answer's error: a 422 about date_from or date_to is shown under its field. */
  error: unknown;
  /** Called with the window when it is submitted within the rule. */
  onApply(window: DateWindow): void;
  submitLabel: string;
  /** The note under the dates, which the form is described by: the rule and what the page's figures mean. */
  note: ComponentChildren;
  /** What a window over the limit may do besides start later ("export consecutive ranges"). */
  longerWindow?: string;
  /** More fields beside the dates (the report's campaign picker). */
  fields?: ComponentChildren;
  /** Buttons beside the submit button (a CSV download). */
  actions?: ComponentChildren;
}

/** A day as the field holds it (the date input's value is always YYYY-MM-DD), or null when it is not one. */
function isoDay(value: string): string | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

/**
 * The From/To form of the reporting pages: a window the API would refuse (a date missing, the end
 * before the start, over 92 days) is explained before it is sent, and the submit button is off.
 * Reports are UTC days, but the date picker shows the browser's language's format (11/19/2026) and
 * a person reads it in their own time zone: under each field the day is said as the reports write
 * it, YYYY-MM-DD, with the UTC hour it starts or ends at.
 */
export function DateWindowForm(props: DateWindowFormProps) {
  const noteId = useId();
  const days = daysBetween(props.from, props.to);
  const problem =
    Number.isNaN(days) ? 'Pick both dates.'
    : days < 0 ? 'The end date is before the start date.'
    : days > MAX_WINDOW_DAYS ? `This range is ${days} days; a report covers at most ${MAX_WINDOW_DAYS}. Pick a later start date (${addDays(props.to, -MAX_WINDOW_DAYS)} or after)${props.longerWindow ? ` or ${props.longerWindow}` : ''}.`
    : null;

  function submit(event: Event) {
    event.preventDefault();
    if (problem) return;
    props.onApply({ from: props.from, to: props.to });
  }

  const submitButton = html`<button type="submit" disabled=${Boolean(problem)}>${props.submitLabel}</button>`;
  return html`
    <form class="card" onSubmit=${submit} noValidate aria-describedby=${noteId}>
      <div class="grid">
        <${Field} label="From (UTC day)" type="date" value=${props.from} onInput=${props.onFrom} path="date_from" error=${props.error}
          hint=${isoDay(props.from) ? `From ${props.from} 00:00 UTC` : 'Pick a day'} />
        <${Field} label="To (UTC day, included)" type="date" value=${props.to} onInput=${props.onTo} path="date_to" error=${props.error}
          hint=${isoDay(props.to) ? `Until ${props.to} 23:59 UTC, included` : 'Pick a day'} />
        ${props.fields}
      </div>
      <p id=${noteId} class="hint">Days are UTC days, whatever this computer's time zone (the date picker writes them in your browser's format). ${props.note}</p>
      ${problem && html`<p class="field-error" role="alert">${problem}</p>`}
      ${props.actions ? html`<div class="actions">${submitButton}${props.actions}</div>` : submitButton}
    </form>`;
}
