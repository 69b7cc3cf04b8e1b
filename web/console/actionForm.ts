import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { ErrorMessage, Field } from './ui.js';

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
  run(values: Record<string, string>): Promise<Answer>;
  /** What to show after success (a created id, a key shown once). */
  done(answer: Answer): VNode | string;
  /** Called once after success (to reload a list that shows what was made). */
  onDone?(answer: Answer): void;
}

/** A small form for one API call (create an organization, revoke a key, …) with its answer or its error. */
export function ActionForm<Answer>({ title, fields, submitLabel, run, done, onDone }: ActionFormProps<Answer>) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<{ value: Answer } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const value = await run(values);
      setAnswer({ value });
      onDone?.(value);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return html`<form class="card" noValidate onSubmit=${submit} aria-label=${title}>
    <h3>${title}</h3>
    ${fields.map((field) => html`<${Field} key=${field.name} label=${field.label} hint=${field.hint} path=${field.path ?? field.name} error=${error}
      value=${values[field.name] ?? ''} onInput=${(value: string) => setValues({ ...values, [field.name]: value })} />`)}
    <${ErrorMessage} error=${error} shownPaths=${fields.map((field) => field.path ?? field.name)} />
    ${answer && done(answer.value)}
    <button type="submit" disabled=${busy}>${submitLabel}</button>
  </form>`;
}
