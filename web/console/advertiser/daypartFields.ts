import { html } from 'htm/preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { Field, problemOf } from '../ui.js';
import { weekdays, type DaypartEdits, type DaypartWindowEdits } from './lineItemEdits.js';

/** A new window's start: the working week's hours, to be changed rather than typed from nothing. */
const newWindow = (): DaypartWindowEdits => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' });

/** The browser's own time zone, offered for the first window (the advertiser's clock, most often). */
function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

/** A window's days as boxes: a group named by its window, the API's refusal of them (no day ticked) under it. */
function DayBoxes({ window, index, error, onDays }: { window: DaypartWindowEdits; index: number; error: unknown; onDays(days: DaypartWindowEdits['days']): void }) {
  const id = useId();
  const message = problemOf({ label: 'The list of days', path: `dayparts.windows.${index}.days`, error });
  const toggle = (day: DaypartWindowEdits['days'][number]) => onDays(window.days.includes(day) ? window.days.filter((kept) => kept !== day) : [...window.days, day]);
  return html`<fieldset class="days">
    <legend>Days</legend>
    ${weekdays.map(([day, label]) => html`<label class="choice" key=${day}><input type="checkbox" checked=${window.days.includes(day)}
      aria-invalid=${message ? 'true' : undefined} aria-describedby=${message ? `${id}-error` : undefined} onChange=${() => toggle(day)} /> ${label}</label>`)}
    ${message && html`<small id=${`${id}-error`} class="field-error">${message}</small>`}
  </fieldset>`;
}

/**
 * The dayparts of a line item's targeting: its time zone and its windows, each of days and a start
 * and end on that zone's clock; no window is any time. *Add a window* puts the focus on the new
 * window's first day, and *Remove window N* on the window that takes its place (or the one before,
 * or *Add a window*), never on <body>. The API's refusals are shown on the field they name; the form
 * drops them when a window is added or removed, as they name windows by index.
 */
export function DaypartFields({ value, onChange, error }: { value: DaypartEdits; onChange(next: DaypartEdits): void; error: unknown }) {
  const hintId = useId();
  const group = useRef<HTMLFieldSetElement>(null);
  const [focusOn, setFocusOn] = useState<number | null>(null);
  useEffect(() => {
    if (focusOn === null) return;
    setFocusOn(null);
    const windows = group.current?.querySelectorAll<HTMLFieldSetElement>('fieldset.daypart-window') ?? [];
    const target = windows[Math.min(focusOn, windows.length - 1)]?.querySelector<HTMLInputElement>('input') ?? group.current?.querySelector<HTMLButtonElement>('button.add-window');
    target?.focus();
  }, [focusOn]);
  const setWindow = (index: number, part: Partial<DaypartWindowEdits>) =>
    onChange({ ...value, windows: value.windows.map((window, at) => (at === index ? { ...window, ...part } : window)) });
  function add() {
    onChange({ timezone: value.windows.length === 0 && value.timezone.trim() === '' ? browserTimeZone() : value.timezone, windows: [...value.windows, newWindow()] });
    setFocusOn(value.windows.length);
  }
  function remove(index: number) {
    onChange({ ...value, windows: value.windows.filter((_window, at) => at !== index) });
    setFocusOn(index);
  }
  const path = (index: number, part: 'start' | 'end') => `dayparts.windows.${index}.${part}`;
  return html`<fieldset class="dayparts" ref=${group} aria-describedby=${hintId}>
    <legend>Dayparts</legend>
    <p class="hint" id=${hintId}>${value.windows.length === 0
      ? 'Any time: no window. Add one to serve only on some days and hours.'
      : 'Serves only inside these windows, from start to end on the ticked days, on the clock of the time zone (daylight saving included). A window over midnight is two windows.'}</p>
    ${value.windows.length > 0 && html`<div class="grid"><${Field} label="Time zone" path="dayparts.timezone" hint="An IANA time zone, e.g. America/New_York or Europe/Berlin"
      value=${value.timezone} onInput=${(timezone: string) => onChange({ ...value, timezone })} error=${error} /></div>`}
    ${value.windows.map((window, index) => html`<fieldset class="daypart-window" key=${index}>
      <legend>Window ${index + 1}</legend>
      <${DayBoxes} window=${window} index=${index} error=${error} onDays=${(days: DaypartWindowEdits['days']) => setWindow(index, { days })} />
      <div class="grid">
        <${Field} label="Start" path=${path(index, 'start')} hint="HH:MM, 24-hour" value=${window.start} onInput=${(start: string) => setWindow(index, { start })} error=${error} />
        <${Field} label="End" path=${path(index, 'end')} hint="HH:MM, after the start; 24:00 ends the day" value=${window.end} onInput=${(end: string) => setWindow(index, { end })} error=${error} />
      </div>
      <button type="button" class="secondary" onClick=${() => remove(index)}>Remove window ${index + 1}</button>
    </fieldset>`)}
    <button type="button" class="secondary add-window" onClick=${add}>Add a window</button>
  </fieldset>`;
}

/** The paths a refusal of the dayparts names and DaypartFields shows on a field. */
export function daypartFieldPaths(edits: DaypartEdits): string[] {
  return edits.windows.length === 0 ? [] : ['dayparts.timezone', ...edits.windows.flatMap((_window, index) => ['days', 'start', 'end'].map((part) => `dayparts.windows.${index}.${part}`))];
}
