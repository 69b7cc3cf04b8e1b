import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { useSubmissionKey } from './submissionKey.js';
import { ErrorMessage, Field } from './ui.js';
import { useUnsavedInput } from './unsavedChanges.js';

interface ActionField {
  name: string;
  label: string;
  hint?: string;
  /** The API's detail path for this field's 422 message, when it differs from name. */
  path?: string;
}

interface ActionFormProps<Answer> {
  title: string;
  fields: ActionField[];
  submitLabel: string;
  /**
   * Sends the form. `idempotencyKey` is this submission's key (submissionKey.ts), for a create the
   * API makes once (docs/operating.md "Creating once"): the same values sent again, by *Retry* after
   * an answer that never came or by the button, carry the same key.
   */
  run(values: Record<string, string>, idempotencyKey: string): Promise<Answer>;
  /** What to show after success (a created id, a key shown once). */
  done(answer: Answer): VNode | string;
  /** Called once after success (to reload a list that shows what was made). */
  onDone?(answer: Answer): void;
  /** The title's heading level: 3 under a section's h2, 2 when the form comes right under the page's h1. */
  level?: 2 | 3;
  /**
   * The API makes it once per key (the five operator creates): a lost answer offers *Retry*, which
   * sends the same values with the same key. Without it (*Add user*), a lost answer says to look first.
   */
  createsOnce?: boolean;
}

/**
 * A small form for one API call (create an organization, revoke a key, …) with its answer or its error.
 * Records made here (organizations, publishers) can be neither deleted nor renamed, so a second Enter
 * must not make a second one: a submit while one is in flight is dropped (a disabled button would not
 * stop an Enter pressed before the page redraws), and a success empties the fields. The button is
 * only marked busy (aria-disabled), never disabled: a disabled button drops the keyboard focus to
 * <body>, so after *Register placement* the next Tab started from the top of the page. A refusal
 * moves focus to the first field it names, or to its alert, so that it is read and not lost on the page.
 * Typed and not yet sent, leaving the page asks first (unsavedChanges.ts). A create the API makes
 * once goes with its submission's key, and its lost answer offers *Retry*: the replayed answer is the
 * first one, shown as it would have been (a key or token shown once is shown then, from the answer).
 */
export function ActionForm<Answer>({ title, fields, submitLabel, run, done, onDone, level = 3, createsOnce = false }: ActionFormProps<Answer>) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<{ value: Answer } | null>(null);
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const form = useRef<HTMLFormElement>(null);
  const submission = useSubmissionKey();
  useUnsavedInput(Object.values(values).some((value) => value.trim() !== ''));

  useEffect(() => {
    if (!error) return;
    const target = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form.current?.querySelector<HTMLElement>('.action-problems');
    target?.focus();
  }, [error]);

  async function submit(event?: Event) {
    event?.preventDefault();
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      // The values are the body's only input: the same values are the same submission.
      const value = await run(values, submission.keyFor(values));
      submission.succeeded();
      setAnswer({ value });
      setValues({});
      onDone?.(value);
    } catch (failure) {
      setError(failure);
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }

  return html`<form class="card" noValidate onSubmit=${submit} aria-label=${title} ref=${form}>
    ${level === 2 ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`}
    ${fields.map((field) => html`<${Field} key=${field.name} label=${field.label} hint=${field.hint} path=${field.path ?? field.name} error=${error}
      value=${values[field.name] ?? ''} onInput=${(value: string) => setValues({ ...values, [field.name]: value })} />`)}
    <div class="action-problems" tabIndex="-1"><${ErrorMessage} error=${error} shownPaths=${fields.map((field) => field.path ?? field.name)}
      retry=${createsOnce ? () => submit() : undefined} /></div>
    ${answer && done(answer.value)}
    <button type="submit" aria-disabled=${busy ? 'true' : undefined}>${submitLabel}</button>
  </form>`;
}
