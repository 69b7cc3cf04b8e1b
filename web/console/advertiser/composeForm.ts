import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { FieldProblems } from '../fieldProblems.js';
import { go } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, Select } from '../ui.js';
import { readAmounts } from '../amountInput.js';
import { listOf } from './lineItemEdits.js';
import { useResource } from '../resource.js';

export const bidTypes = [['CPC', 'CPC: per valid click'], ['tCPM', 'tCPM: per thousand valid impressions'], ['CPA', 'CPA: per conversion']] as const;

const initial = {
  name: '', brand_name: '', user_id: '', line_title: '', daily: '', currency: 'USD', bid_type: 'CPC', bid_value: '',
  keywords: '', placements: '', title: '', body: '', cta: '', destination_url: '', image_url: '',
};
type Form = typeof initial;
type AmountPath = 'line_item.budget.daily' | 'line_item.bids.bid_value';
const amountPaths: readonly string[] = ['line_item.budget.daily', 'line_item.bids.bid_value'];

function typedAmounts(form: Form): Partial<Record<AmountPath, string>> {
  return {
    ...(form.daily.trim() !== '' ? { 'line_item.budget.daily': form.daily } : {}),
    ...(form.bid_value.trim() !== '' ? { 'line_item.bids.bid_value': form.bid_value } : {}),
  };
}

/**
 * Compose's body, or, when an amount cannot be read, every problem at once: the amounts' (from this
 * form) and the other fields' (from POST .../validate, asked with 1 standing in for each amount, which
 * stores nothing), so that an empty name or a javascript: URL is not shown only on a second submit.
 */
async function composeOrProblems(session: Session, form: Form) {
  const typed = typedAmounts(form);
  try {
    return composeBody(form, readAmounts(typed));
  } catch (failure) {
    if (!(failure instanceof FieldProblems)) throw failure;
    const standIns = Object.fromEntries(Object.keys(typed).map((path) => [path, 1]));
    const others = await api(session, 'POST', '/v1/advertiser/campaigns/validate', composeBody(form, standIns)).then(
      () => [],
      (answer: unknown) => (answer instanceof ApiFailure && answer.status === 422 ? answer.details.filter((detail) => !amountPaths.includes(detail.path)) : []),
    );
    throw new FieldProblems(failure.message, [...failure.details, ...others]);
  }
}

/**
 * The compose body: only what was filled in, so that the API's rules (not this form's) decide.
 * Amounts are read first (a decimal comma is fine); one that cannot be read is never sent as text
 * the API would refuse in zod's words: `amounts` stands in for every amount (see submit).
 */
function composeBody(form: Form, amounts: Partial<Record<AmountPath, number>>) {
  const keywords = listOf(form.keywords);
  const placements = listOf(form.placements);
  const creativeTyped = [form.title, form.body, form.cta, form.destination_url, form.image_url].some((value) => value.trim() !== '');
  return {
    campaign: { name: form.name, brand_name: form.brand_name, user_id: form.user_id.trim() },
    line_item: {
      title: form.line_title,
      ...(form.daily.trim() !== '' ? { budget: { daily: amounts['line_item.budget.daily'], currency: form.currency } } : {}),
      ...(form.bid_value.trim() !== '' ? { bids: { bid_type: form.bid_type, bid_value: amounts['line_item.bids.bid_value'] } } : {}),
      ...(keywords || placements
        ? { targeting: { ...(keywords ? { keywords: { include: keywords } } : {}), ...(placements ? { placements: { include: placements } } : {}) } }
        : {}),
      ...(creativeTyped
        ? {
            creatives: [{
              format: 'contextual_card', title: form.title, body: form.body, cta: form.cta, destination_url: form.destination_url,
              ...(form.image_url.trim() !== '' ? { image_url: form.image_url } : {}),
            }],
          }
        : {}),
    },
  };
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
const fieldPaths = [
  'campaign.name', 'campaign.brand_name', 'campaign.user_id', 'line_item.title', 'line_item.budget.daily', 'line_item.budget.currency',
  'line_item.bids.bid_type', 'line_item.bids.bid_value', 'line_item.targeting.keywords.include', 'line_item.targeting.placements.include',
  'line_item.creatives.0.title', 'line_item.creatives.0.body', 'line_item.creatives.0.cta', 'line_item.creatives.0.destination_url', 'line_item.creatives.0.image_url',
];

/** Creates a campaign with its first line item in one call (POST compose); it starts paused. */
export function ComposePage({ session }: { session: Session }) {
  const [form, setForm] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof Form) => ({ value: form[name], onInput: (value: string) => setForm({ ...form, [name]: value }), error });
  const membersRead = useResource<Member[]>(session, `/v1/advertiser/users?limit=${MEMBERS_OFFERED}`);
  const members = membersRead.data;
  const owners = ownerChoices(membersRead);
  // An organization of one has one possible owner: chosen for the advertiser.
  useEffect(() => {
    if (members?.length === 1) setForm((current) => (current.user_id === '' ? { ...current, user_id: members[0]!.id } : current));
  }, [members]);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = await composeOrProblems(session, form);
      const created = await api<{ data: { campaign: { id: string } } }>(session, 'POST', '/v1/advertiser/campaigns/compose', body);
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
    <div id="compose-errors" tabindex="-1"><${ErrorMessage} error=${error} shownPaths=${fieldPaths} /></div>
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
      <div class="grid">
        <${Field} label="Line item title" path="line_item.title" ...${field('line_title')} />
        <${Field} label="Daily budget" path="line_item.budget.daily" type="text" hint="For example 50" ...${field('daily')} />
        <${Field} label="Budget currency" path="line_item.budget.currency" hint="ISO 4217, e.g. USD or EUR; also the bid's currency" ...${field('currency')} />
        <${Select} label="Bid type" path="line_item.bids.bid_type" options=${bidTypes} ...${field('bid_type')} />
        <${Field} label="Bid value" path="line_item.bids.bid_value" ...${field('bid_value')} />
        <${Field} label="Keywords to match" path="line_item.targeting.keywords.include" hint="Comma-separated; empty matches every conversation." list=${{ noun: 'Keyword', entries: listOf(form.keywords) ?? [] }} ...${field('keywords')} />
        <${Field} label="Placements to run on" path="line_item.targeting.placements.include" hint="Comma-separated placement ids; empty means all." list=${{ noun: 'Placement', entries: listOf(form.placements) ?? [] }} ...${field('placements')} />
      </div>
    </section>
    <section class="card" aria-labelledby="compose-creative">
      <h2 id="compose-creative">Creative (contextual card)</h2>
      <div class="grid">
        <${Field} label="Title" path="line_item.creatives.0.title" hint="Up to 90 characters" ...${field('title')} />
        <${Field} label="Call to action" path="line_item.creatives.0.cta" hint="Up to 30 characters" ...${field('cta')} />
        <${Field} label="Destination URL" path="line_item.creatives.0.destination_url" type="url" ...${field('destination_url')} />
        <${Field} label="Image URL (optional)" path="line_item.creatives.0.image_url" type="url" ...${field('image_url')} />
      </div>
      <${Field} label="Body" path="line_item.creatives.0.body" multiline hint="Up to 300 characters" ...${field('body')} />
    </section>
    <button type="submit" disabled=${busy}>Create campaign</button>
  </form>`;
}
