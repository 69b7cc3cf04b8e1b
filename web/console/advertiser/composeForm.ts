import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { go } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, Select } from '../ui.js';
import { CreativeFields, LineItemFields, lineItemFieldPaths, lineItemOrProblems, newLineItem, type TextField } from './lineItemForm.js';
import { useResource } from '../resource.js';
import { useSubmissionKey } from '../submissionKey.js';
import { useUnsavedInput } from '../unsavedChanges.js';

const initial = { name: '', brand_name: '', user_id: '', ...newLineItem };
type Form = typeof initial;

/** The compose body, or every problem of the form at once (lineItemOrProblems). */
function composeOrProblems(session: Session, form: Form) {
  const campaign = { name: form.name, brand_name: form.brand_name, user_id: form.user_id.trim() };
  return lineItemOrProblems(session, form, 'line_item.', (line_item) => {
    const body = { campaign, line_item };
    return { body, validate: body };
  });
}

interface Member {
  id: string;
  email: string;
}

/** The owners offered by email (GET /v1/advertiser/users); past this many, the owner's id is typed. */
const MEMBERS_OFFERED = 1000;

/**
 * The owner's choices by email; null when they cannot be offered (the members' read failed, or
 * they are too many for one list), and the owner's id is typed instead.
 */
function ownerChoices({ data: members, error }: { data: Member[] | null; error: unknown }): [string, string][] | null {
  if (error || (members && (members.length === 0 || members.length >= MEMBERS_OFFERED))) return null;
  if (!members) return [['', 'Loading the organization\'s users…']];
  return [['', 'Choose the owner'], ...members.map((member): [string, string] => [member.id, member.email])];
}

/** The detail paths the form shows beside its fields; ErrorMessage lists any other. */
const fieldPaths = ['campaign.name', 'campaign.brand_name', 'campaign.user_id', ...lineItemFieldPaths('line_item.')];

/** Creates a campaign with its first line item in one call (POST compose); it starts paused. */
export function ComposePage({ session }: { session: Session }) {
  const [form, setForm] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: 'name' | 'brand_name' | 'user_id' | TextField) => ({ value: form[name], onInput: (value: string) => setForm({ ...form, [name]: value }), error });
  const membersRead = useResource<Member[]>(session, `/v1/advertiser/users?limit=${MEMBERS_OFFERED}`);
  const members = membersRead.data;
  const owners = ownerChoices(membersRead);
  // An organization of one has one possible owner: chosen for the advertiser.
  useEffect(() => {
    if (members?.length === 1) setForm((current) => (current.user_id === '' ? { ...current, user_id: members[0]!.id } : current));
  }, [members]);
  // Typed input not yet sent asks before leaving the page (the owner chosen for the advertiser is not typed).
  const chosenForYou = members?.length === 1 && form.user_id === members[0]!.id;
  useUnsavedInput(JSON.stringify({ ...form, user_id: chosenForYou ? '' : form.user_id }) !== JSON.stringify(initial));

  // The same form sent again (Retry after no answer, or the button) composes once.
  const submission = useSubmissionKey();
  async function submit(event?: Event) {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = await composeOrProblems(session, form);
      const created = await api<{ data: { campaign: { id: string } } }>(session, 'POST', '/v1/advertiser/campaigns/compose', body, {
        idempotencyKey: submission.keyFor(body),
      });
      submission.succeeded();
      go('campaign', { id: created.data.campaign.id });
    } catch (failure) {
      setError(failure);
      document.getElementById('compose-errors')?.focus();
    } finally {
      setBusy(false);
    }
  }

  return html`<form onSubmit=${submit} noValidate>
    <p class="hint">The campaign starts paused; activate it once its line item has a budget and bids. Fields the service refuses are marked with its reason.</p>
    <div id="compose-errors" tabindex="-1"><${ErrorMessage} error=${error} shownPaths=${fieldPaths} retry=${() => submit()} /></div>
    <section class="card" aria-labelledby="compose-campaign">
      <h2 id="compose-campaign">Campaign</h2>
      <div class="grid">
        <${Field} label="Campaign name" path="campaign.name" ...${field('name')} />
        <${Field} label="Brand name" path="campaign.brand_name" ...${field('brand_name')} />
        ${owners
          ? html`<${Select} label="Owner" path="campaign.user_id" options=${owners} ...${field('user_id')} />`
          : html`<${Field} label="Owner user id" path="campaign.user_id" hint="A user of your organization (UUID)." ...${field('user_id')} />`}
      </div>
    </section>
    <section class="card" aria-labelledby="compose-line-item">
      <h2 id="compose-line-item">Line item</h2>
      <${LineItemFields} field=${field} at="line_item." form=${form} onSemantic=${(semantic: boolean) => setForm({ ...form, semantic })} />
    </section>
    <section class="card" aria-labelledby="compose-creative">
      <h2 id="compose-creative">Creative (contextual card)</h2>
      <${CreativeFields} field=${field} at="line_item." />
    </section>
    <button type="submit" disabled=${busy}>Create campaign</button>
  </form>`;
}
