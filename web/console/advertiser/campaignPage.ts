import { html } from 'htm/preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, whileCurrent, type SendOptions } from '../api.js';
import type { Route } from '../route.js';
import type { Session } from '../session.js';
import { lacking, may } from '../keyPermissions.js';
import { ErrorMessage, Field, Notice, Select, useFocusOnRefusal } from '../ui.js';
import type { Campaign, LineItem } from './advertiserApi.js';
import { readAmounts } from '../amountInput.js';
import { bidTypes, CreativeFields, LineItemFields, lineItemFieldPaths, lineItemOrProblems, newLineItem, type NewLineItem, type TextField } from './lineItemForm.js';
import { bidRepricing, frequencyCapBody, frequencyCapText, frequencyCapWindows, listOf, targetingBody, targetingEdits, untouchedTargeting, type TargetingEdits } from './lineItemEdits.js';
import { MatchPreviewBox } from './matchPreviewBox.js';
import { useChangedSinceSaved, useUnsavedInput } from '../unsavedChanges.js';
import { useSubmissionKey } from '../submissionKey.js';
import { LineItemFacts } from './lineItemFacts.js';
import { CountryFields, LifetimeAndPacingFields, SemanticFields } from './budgetAndTargetingFields.js';
import { DaypartFields, daypartFieldPaths } from './daypartFields.js';
import { activateCampaign, ActivationQuestion, pausedLineItems, type ActivationAnswer } from './campaignActivation.js';

type Save = (method: string, path: string, body: unknown, options?: SendOptions) => Promise<void>;

/**
 * One small form per API write (PUT budget, PUT bids, PATCH frequency_cap, PUT targeting, POST
 * creatives), each with its own 422 details. `typed` is the form's input: while it differs from
 * what was loaded or last saved, leaving the page asks first (unsavedChanges.ts).
 */
function useWrite(save: Save, typed?: unknown) {
  const unsaved = useChangedSinceSaved(typed);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  /** True once saved. */
  async function write(method: string, path: string, body: unknown, options?: SendOptions): Promise<boolean> {
    setError(null);
    setSaved(false);
    // What is saved is the input as it was when the button was pressed; typing meanwhile stays unsaved.
    const saving = unsaved.saved;
    try {
      await save(method, path, body, options);
      saving();
      setSaved(true);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  }
  /** A problem found before sending (an amount that cannot be read), shown like the API's own. */
  function fail(failure: unknown) {
    setSaved(false);
    setError(failure);
  }
  /** The shown refusal no longer names what is on the form (a window removed moves the others' numbers). */
  function forget() {
    setError(null);
  }
  return { error, saved, write, fail, forget };
}

/** delivery_stopped_by in plain words: what stopped the line item and what lets it deliver again. */
const stoppedBy: Record<NonNullable<LineItem['delivery_stopped_by']>, { short: string; long: string }> = {
  lifetime_budget: {
    short: 'lifetime budget spent',
    long: 'Not delivering: its lifetime budget is spent. Raise the lifetime budget to deliver again.',
  },
  monthly_budget: {
    short: "this month's budget spent",
    long: "Not delivering this month: spend this UTC month reached its monthly ceiling (30.4 times the daily budget). It delivers again next month, or now with a higher daily budget.",
  },
};

/**
 * A tCPM line item is served only on certified placements (docs/serving.md), and nothing the
 * advertiser API answers says which placements are: con43's tCPM line item on an uncertified
 * placement never served and its page said nothing. The console cannot say "cannot deliver" as it
 * does for a missing creative, so it says the rule, and where to look when it does not deliver.
 */
const tcpmRule = 'A tCPM bid is served only on placements certified for impression-priced demand; uncertified ones take CPC and CPA bids only. '
  + 'Which placements are certified is not shown to advertisers: if this line item does not deliver, ask the publisher whether its placements are, or bid CPC.';

/** The campaign's line items that active status alone would call delivering, but a budget has stopped. */
function StoppedForBudget({ items }: { items: LineItem[] }) {
  const stopped = items.filter((item) => item.delivery_stopped_by !== null);
  if (stopped.length === 0) return '';
  const who = stopped.length === 1 ? 'A line item has' : `${stopped.length} of ${items.length} line items have`;
  return html`<p class="notice stopped" role="status" data-testid="campaign-stopped">${`${who} stopped delivering for budget: `}${stopped.map(
    (item, index) => html`${index > 0 ? '; ' : ''}<strong>${item.title}</strong>${` (${stoppedBy[item.delivery_stopped_by!].short})`}`,
  )}.</p>`;
}

/**
 * Every field of the budget (PUT budget replaces it whole): daily, currency, the optional lifetime
 * total and pacing. The bid is in the budget's currency and is not converted with it, so a new
 * currency while the line item has a bid is asked about first, in place as the console's other
 * questions are: what the bid will then mean, to save anyway or to edit the bid first (try37 M1).
 * The question is an alertdialog described by its sentence, which a screen reader reads as the
 * focus lands on its first button; Escape closes it, and any edit of the form drops it.
 */
function BudgetForm({ item, save }: { item: LineItem; save: Save }) {
  const [daily, setDaily] = useState(String(item.budget?.daily ?? ''));
  const [currency, setCurrency] = useState(item.budget?.currency ?? 'USD');
  const [lifetime, setLifetime] = useState(String(item.budget?.lifetime ?? ''));
  const [pacing, setPacing] = useState<string>(item.budget?.pacing ?? 'even');
  const [asking, setAsking] = useState<{ question: string; body: unknown } | null>(null);
  const { error, saved, write, fail } = useWrite(save, { daily, currency, lifetime, pacing });
  const form = useRef<HTMLFormElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  const route = `/v1/advertiser/line-items/${item.id}/budget`;
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setAsking(null);
  };
  function submit(event: Event) {
    event.preventDefault();
    try {
      const body = { ...readAmounts({ daily, ...(lifetime.trim() !== '' ? { lifetime } : {}) }), currency, pacing };
      const question = item.bids && bidRepricing(item.bids.bid_value, item.budget?.currency ?? 'USD', currency);
      if (question) return setAsking({ question, body });
      setAsking(null);
      write('PUT', route, body);
    } catch (failure) {
      fail(failure);
    }
  }
  function answer(saveAnyway: boolean) {
    const body = asking?.body;
    setAsking(null);
    if (saveAnyway) write('PUT', route, body);
    else form.current?.closest('section')?.querySelector<HTMLInputElement>('form.bids input')?.focus();
  }
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    setAsking(null);
    form.current?.querySelector<HTMLButtonElement>('button[type="submit"]')?.focus();
  };
  const next = currency.trim().toUpperCase();
  return html`<form class="card" noValidate aria-label=${`Budget of ${item.title}`} onSubmit=${submit} ref=${form}>
    <h3>Budget</h3>
    <div class="grid">
      <${Field} label="Daily budget" path="daily" value=${daily} onInput=${edit(setDaily)} error=${error} />
      <${Field} label="Currency" path="currency" value=${currency} onInput=${edit(setCurrency)} error=${error}
        hint=${item.bids ? 'The bid is in this currency too, and is not converted when it changes' : undefined} />
      <${LifetimeAndPacingFields} lifetime=${{ value: lifetime, onInput: edit(setLifetime) }} pacing=${{ value: pacing, onInput: edit(setPacing) }}
        paths=${{ lifetime: 'lifetime', pacing: 'pacing' }} error=${error} />
    </div>
    <${ErrorMessage} error=${error} shownPaths=${['daily', 'currency', 'lifetime', 'pacing']} />
    ${saved && html`<${Notice}>Budget saved.</${Notice}>`}
    ${asking && html`<div class="confirm" role="alertdialog" aria-label="The bid changes currency too" aria-describedby=${questionId} onKeyDown=${closeOnEscape}>
      <p id=${questionId}>${asking.question} The bid is in the budget's currency and is not converted. To bid the same, edit the bid first: type what it should be in ${next} and save it (it stays in ${item.budget?.currency ?? 'USD'} until the budget is saved).</p>
      <button type="button" ref=${confirm} onClick=${() => answer(true)}>Save budget in ${next}</button>
      <button type="button" class="secondary" onClick=${() => answer(false)}>Edit the bid first</button>
    </div>`}
    <button type="submit">Save budget</button>
  </form>`;
}

/** Both fields of the bids (PUT bids replaces them whole). */
function BidsForm({ item, save }: { item: LineItem; save: Save }) {
  const [bidType, setBidType] = useState(item.bids?.bid_type ?? 'CPC');
  const [bidValue, setBidValue] = useState(String(item.bids?.bid_value ?? ''));
  const { error, saved, write, fail } = useWrite(save, { bidType, bidValue });
  function submit(event: Event) {
    event.preventDefault();
    try {
      write('PUT', `/v1/advertiser/line-items/${item.id}/bids`, { bid_type: bidType, ...readAmounts({ bid_value: bidValue }) });
    } catch (failure) {
      fail(failure);
    }
  }
  return html`<form class="card bids" noValidate aria-label=${`Bids of ${item.title}`} onSubmit=${submit}>
    <h3>Bids</h3>
    <div class="grid">
      <${Select} label="Bid type" path="bid_type" options=${bidTypes} value=${bidType} onInput=${setBidType} error=${error} />
      <${Field} label="Bid value" path="bid_value" hint=${`In ${item.budget?.currency ?? 'the budget currency'}`} value=${bidValue} onInput=${setBidValue} error=${error} />
    </div>
    <${ErrorMessage} error=${error} shownPaths=${['bid_type', 'bid_value']} />
    ${saved && html`<${Notice}>Bids saved.</${Notice}>`}
    <button type="submit">Save bids</button>
  </form>`;
}

/**
 * The frequency cap (PATCH line-items/{id} with frequency_cap alone): a count and its window; an
 * empty count removes the cap. What the saved cap means is said under the line item's heading.
 */
function FrequencyCapForm({ item, save }: { item: LineItem; save: Save }) {
  const [impressions, setImpressions] = useState(item.frequency_cap === null ? '' : String(item.frequency_cap.impressions));
  const [per, setPer] = useState<string>(item.frequency_cap?.per ?? 'day');
  const [removed, setRemoved] = useState(false);
  const { error, saved, write, fail } = useWrite(save, { impressions, per });
  const form = useFocusOnRefusal<HTMLFormElement>(error);
  function submit(event: Event) {
    event.preventDefault();
    try {
      const body = frequencyCapBody(impressions, per);
      setRemoved(body.frequency_cap === null);
      write('PATCH', `/v1/advertiser/line-items/${item.id}`, body);
    } catch (failure) {
      fail(failure);
    }
  }
  return html`<form class="card" noValidate aria-label=${`Frequency cap of ${item.title}`} onSubmit=${submit} ref=${form}>
    <h3>Frequency cap</h3>
    <div class="grid">
      <${Field} label="Impressions per user (optional)" path="frequency_cap.impressions" hint="1 to 1,000,000; empty: no cap" value=${impressions} onInput=${setImpressions} error=${error} />
      <${Select} label="Time window" path="frequency_cap.per" options=${frequencyCapWindows} value=${per} onInput=${setPer} error=${error} />
    </div>
    <p class="hint">The user is the publisher's <code>user.id</code>: a capped line item is never shown to requests that do not send one.</p>
    <${ErrorMessage} error=${error} shownPaths=${['frequency_cap.impressions', 'frequency_cap.per']} />
    ${saved && html`<${Notice}>${removed ? 'Frequency cap removed.' : 'Frequency cap saved.'}</${Notice}>`}
    <button type="submit">Save frequency cap</button>
  </form>`;
}

function TargetingForm({ item, save }: { item: LineItem; save: Save }) {
  const [edits, setEdits] = useState<TargetingEdits>(() => targetingEdits(item.targeting));
  const { error, saved, write, fail, forget } = useWrite(save, edits);
  type TextEdit = Exclude<keyof TargetingEdits, 'semantic' | 'dayparts'>;
  const text = (name: TextEdit) => ({ value: edits[name], onInput: (value: string) => setEdits({ ...edits, [name]: value }) });
  const field = (name: TextEdit, noun: string) => ({ ...text(name), error, list: { noun, entries: listOf(edits[name]) ?? [] } });
  const untouched = untouchedTargeting(item.targeting);
  const form = useFocusOnRefusal<HTMLFormElement>(error);
  function setDayparts(dayparts: TargetingEdits['dayparts']) {
    // The API names a window by its index: once one is added or removed, a refusal would sit on (or
    // name) the wrong window (rev45 R8), so it goes until the next Save.
    if (dayparts.windows.length !== edits.dayparts.windows.length) forget();
    setEdits({ ...edits, dayparts });
  }
  function submit(event: Event) {
    event.preventDefault();
    let body;
    try {
      body = targetingBody(item.targeting, edits);
    } catch (problems) {
      fail(problems);
      return;
    }
    write('PUT', `/v1/advertiser/line-items/${item.id}/targeting`, body);
  }
  return html`<form class="card" noValidate aria-label=${`Targeting of ${item.title}`} onSubmit=${submit} ref=${form}>
    <h3>Targeting</h3>
    <p class="hint">Comma-separated; an empty list matches everything and exclusions always win.</p>
    <div class="grid">
      <${Field} label="Keywords to match" path="keywords.include" ...${field('keywordsInclude', 'Keyword')} />
      <${Field} label="Keywords to avoid" path="keywords.exclude" ...${field('keywordsExclude', 'Keyword')} />
      <${Field} label="Placements to run on" path="placements.include" ...${field('placementsInclude', 'Placement')} />
      <${Field} label="Languages (ISO 639-1)" path="languages" ...${field('languages', 'Language')} />
      <${CountryFields} include=${text('countriesInclude')} exclude=${text('countriesExclude')} paths=${{ include: 'countries.include', exclude: 'countries.exclude' }} error=${error} />
    </div>
    <${SemanticFields} enabled=${edits.semantic} onEnabled=${(semantic: boolean) => setEdits({ ...edits, semantic })}
      minSimilarity=${text('minSimilarity')} path="semantic.min_similarity" error=${error} />
    <${DaypartFields} value=${edits.dayparts} onChange=${setDayparts} error=${error} />
    ${untouched.length > 0 && html`<div class="hint" data-testid="kept-targeting"><p>Also set (through the API), kept as it is when you save:</p>
      <ul>${untouched.map((part) => html`<li>${part}</li>`)}</ul></div>`}
    <${ErrorMessage} error=${error} shownPaths=${['keywords.include', 'keywords.exclude', 'placements.include', 'languages', 'countries.include', 'countries.exclude', 'semantic.min_similarity', ...daypartFieldPaths(edits.dayparts)]} />
    ${saved && html`<${Notice}>Targeting saved.</${Notice}>`}
    <button type="submit">Save targeting</button>
  </form>`;
}

function CreativeForm({ item, save }: { item: LineItem; save: Save }) {
  const [creative, setCreative] = useState({ title: '', body: '', cta: '', destination_url: '', image_url: '' });
  const { error, saved, write } = useWrite(save, creative);
  const field = (name: keyof typeof creative) => ({ value: creative[name], onInput: (value: string) => setCreative({ ...creative, [name]: value }), error, path: `creatives.0.${name}` });
  // The same form sent again (Retry after no answer, or the button) adds one creative.
  const submission = useSubmissionKey();
  async function submit(event?: Event) {
    event?.preventDefault();
    const { image_url, ...text } = creative;
    const body = { creatives: [{ format: 'contextual_card', ...text, ...(image_url.trim() ? { image_url } : {}) }] };
    if (await write('POST', `/v1/advertiser/line-items/${item.id}/creatives`, body, { idempotencyKey: submission.keyFor(body) })) submission.succeeded();
  }
  return html`<form class="card" noValidate aria-label=${`New creative for ${item.title}`} onSubmit=${submit}>
    <h3>Add a creative</h3>
    <div class="grid">
      <${Field} label="Title" ...${field('title')} />
      <${Field} label="Call to action" ...${field('cta')} />
      <${Field} label="Destination URL" type="url" ...${field('destination_url')} />
      <${Field} label="Image URL (optional)" type="url" ...${field('image_url')} />
    </div>
    <${Field} label="Body" multiline ...${field('body')} />
    <${ErrorMessage} error=${error} shownPaths=${['title', 'body', 'cta', 'destination_url', 'image_url'].map((name) => `creatives.0.${name}`)} retry=${() => submit()} />
    ${saved && html`<${Notice}>Creative added.</${Notice}>`}
    <button type="submit">Add creative</button>
  </form>`;
}

/**
 * A line item's own status: *Activate line item* (a draft or paused one; the API's activation rule
 * applies: budget and bids) and *Pause line item*. As for the campaign's, the pressed button goes
 * away with the status it changed, so the focus goes to its replacement once the reload shows it.
 */
function LineItemStatus({ item, save }: { item: LineItem; save: Save }) {
  const { error, write } = useWrite(save);
  const [toggled, setToggled] = useState<'active' | 'paused' | null>(null);
  const actions = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (toggled !== null && item.status === toggled) actions.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [toggled, item.status]);
  async function setStatus(status: 'active' | 'paused') {
    setToggled(null);
    await write('PATCH', `/v1/advertiser/line-items/${item.id}`, { status });
    setToggled(status);
  }
  if (item.status === 'completed') return '';
  return html`<div class="actions" ref=${actions}>
      ${item.status === 'active'
        ? html`<button type="button" class="secondary" onClick=${() => setStatus('paused')}>Pause line item</button>`
        : html`<button type="button" onClick=${() => setStatus('active')}>Activate line item</button>`}
    </div>
    <p role="status" class="visually-hidden">${toggled !== null && item.status === toggled ? `${item.title} is now ${toggled}.` : ''}</p>
    <${ErrorMessage} error=${error} />`;
}

/**
 * *Add a line item* (POST campaigns/{id}/line-items): the fields of *New campaign*'s line item and
 * creative, the frequency cap among them (lineItemForm.ts). It starts draft; `created` is told its
 * id, so the page can show it and move the focus to it.
 */
function NewLineItemForm({ session, campaignId, created }: { session: Session; campaignId: string; created: (id: string) => Promise<void> }) {
  const [form, setForm] = useState<NewLineItem>(newLineItem);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const errors = useRef<HTMLDivElement>(null);
  // Emptied once the line item is created: nothing left unsaved.
  useUnsavedInput(JSON.stringify(form) !== JSON.stringify(newLineItem));
  const field = (name: TextField) => ({ value: form[name], onInput: (value: string) => setForm({ ...form, [name]: value }), error });
  // The same form sent again (Retry after no answer, or the button) adds one line item.
  const submission = useSubmissionKey();
  async function submit(event?: Event) {
    event?.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const body = await lineItemOrProblems(session, form, '', (line_item) => ({ body: line_item, validate: { line_item } }));
      const path = `/v1/advertiser/campaigns/${encodeURIComponent(campaignId)}/line-items`;
      const answer = await api<{ data: { id: string } }>(session, 'POST', path, body, { idempotencyKey: submission.keyFor(body) });
      submission.succeeded();
      setForm(newLineItem);
      await created(answer.data.id);
    } catch (failure) {
      setError(failure);
      errors.current?.focus();
    } finally {
      setBusy(false);
    }
  }
  return html`<form class="card" noValidate aria-labelledby="new-line-item" onSubmit=${submit}>
    <h2 id="new-line-item">Add a line item</h2>
    <p class="hint">It starts as a draft: activate it once it has a budget, bids and a creative.</p>
    <div tabindex="-1" ref=${errors}><${ErrorMessage} error=${error} shownPaths=${lineItemFieldPaths('')} retry=${() => submit()} /></div>
    <${LineItemFields} field=${field} at="" form=${form} onSemantic=${(semantic: boolean) => setForm({ ...form, semantic })} />
    <h3>First creative (contextual card, optional)</h3>
    <${CreativeFields} field=${field} at="" />
    <button type="submit" disabled=${busy}>Add line item</button>
  </form>`;
}

/**
 * A campaign: status with activate and pause, each line item's status, budget, bids, frequency
 * cap, targeting and creatives, and a form to add a line item.
 */
export function CampaignPage({ session, route }: { session: Session; route: Route }) {
  const id = route.params.get('id') ?? '';
  const [detail, setDetail] = useState<{ campaign: Campaign; line_items: LineItem[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const segment = encodeURIComponent(id);
    return whileCurrent(Promise.all([
      api<{ data: Campaign }>(session, 'GET', `/v1/advertiser/campaigns/${segment}`),
      api<{ data: LineItem[] }>(session, 'GET', `/v1/advertiser/campaigns/${segment}/line-items`),
    ]), ([campaign, lineItems]) => setDetail({ campaign: campaign.data, line_items: lineItems.data }), setError);
  }, [id, version]);

  // Arriving from "Create campaign" (or any page whose focused control went away), keyboard focus
  // would fall to <body>: it goes to the campaign's heading instead. Focus the user put elsewhere stays.
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = detail !== null;
  useEffect(() => {
    if (loaded && (document.activeElement === null || document.activeElement === document.body)) heading.current?.focus();
  }, [loaded]);

  const save: Save = async (method, path, body, options) => {
    await api(session, method, path, body, options);
    setVersion((count) => count + 1);
  };
  // A line item just added: once the reload shows it, the focus goes to its heading (the form it
  // was typed in is emptied, and the new section is where the next step, activating it, is).
  const [added, setAdded] = useState<string | null>(null);
  const lineItemCount = detail?.line_items.length;
  useEffect(() => {
    if (added !== null) document.getElementById(`li-${added}`)?.focus();
  }, [added, lineItemCount]);
  const lineItemAdded = async (lineItemId: string) => {
    setAdded(lineItemId);
    setVersion((count) => count + 1);
  };
  // Activate and Pause replace the pressed button by the other one, which would drop the focus to
  // <body>: once the reloaded campaign shows the new status, the focus goes to the new button and
  // the status line says what changed, as on the campaign list.
  // Activating with paused line items is asked about first (campaignActivation.ts); the status
  // line then says what became of them.
  const [toggled, setToggled] = useState<{ status: 'active' | 'paused'; also: string } | null>(null);
  const [asking, setAsking] = useState(false);
  const statusActions = useRef<HTMLDivElement>(null);
  const shownStatus = detail?.campaign.status;
  useEffect(() => {
    // A question opened meanwhile (Activate pressed within a frame of appearing) keeps the focus.
    if (toggled !== null && shownStatus === toggled.status && !asking) statusActions.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [toggled, shownStatus]);
  async function setStatus(status: 'active' | 'paused', answer: 'keep-paused' | 'all' = 'all') {
    setError(null);
    setToggled(null);
    try {
      const also = status === 'active'
        ? await activateCampaign(session, id, pausedLineItems(detail?.line_items ?? []), answer)
        : (await api(session, 'PATCH', `/v1/advertiser/campaigns/${encodeURIComponent(id)}`, { status }), '');
      setToggled({ status, also });
    } catch (failure) {
      setError(failure);
    } finally {
      setVersion((count) => count + 1);
    }
  }
  function activate() {
    if (pausedLineItems(detail?.line_items ?? []).length > 0) setAsking(true);
    else setStatus('active');
  }
  function answered(answer: ActivationAnswer) {
    setAsking(false);
    if (answer === null) statusActions.current?.querySelector<HTMLButtonElement>('button')?.focus();
    else setStatus('active', answer);
  }

  const retry = () => {
    setError(null);
    setVersion((count) => count + 1);
  };
  if (!detail) return html`<${ErrorMessage} error=${error} retry=${retry} />${!error && html`<p role="status">Loading…</p>`}`;
  const { campaign, line_items } = detail;
  const canEdit = may(session, 'campaigns');
  // Said once the reload shows it; seen too when it tells what became of the paused line items.
  const said = toggled !== null && campaign.status === toggled.status ? toggled : null;
  return html`
    <h2 ref=${heading} tabindex="-1">${campaign.name}</h2>
    <p>Brand ${campaign.brand_name} · status <span class=${`status status-${campaign.status}`} data-testid="campaign-status">${campaign.status}</span></p>
    <p role="status" class=${said?.also ? 'notice' : 'visually-hidden'}>${said ? `${campaign.name} is now ${said.status}.${said.also}` : ''}</p>
    <div class="actions" ref=${statusActions}>
      ${campaign.status === 'paused' && canEdit && html`<button type="button" aria-expanded=${asking} onClick=${activate}>Activate campaign</button>`}
      ${campaign.status === 'active' && canEdit && html`<button type="button" class="secondary" onClick=${() => setStatus('paused')}>Pause campaign</button>`}
      ${may(session, 'reporting') && html`<a href=${`#/report?campaign=${campaign.id}`}>Report</a>`}
    </div>
    ${asking && campaign.status === 'paused' && html`<${ActivationQuestion} campaignName=${campaign.name} paused=${pausedLineItems(line_items)} onAnswer=${answered} />`}
    ${!canEdit && html`<p class="hint">${lacking.campaigns}</p>`}
    <${ErrorMessage} error=${error} />
    <${StoppedForBudget} items=${line_items} />
    ${line_items.map((item) => html`<section key=${item.id} aria-labelledby=${`li-${item.id}`}>
      <h2 id=${`li-${item.id}`} tabindex="-1">Line item: ${item.title} <span class=${`status status-${item.status}`}>${item.status}</span></h2>
      ${canEdit && html`<${LineItemStatus} item=${item} save=${save} />`}
      ${item.delivery_stopped_by !== null && html`<p class="notice stopped" data-testid="line-item-stopped">${stoppedBy[item.delivery_stopped_by].long}</p>`}
      ${item.creatives.length === 0 && item.status !== 'completed' && html`<p class="notice stopped" data-testid="line-item-no-creative">Cannot deliver: it has no creative. ${canEdit ? 'Add one below' : 'A creative must be added'} before it can be shown.</p>`}
      ${item.bids?.bid_type.toLowerCase() === 'tcpm' && item.status !== 'completed' && html`<p class="hint" data-testid="line-item-tcpm">${tcpmRule}</p>`}
      <p data-testid="line-item-frequency-cap">${frequencyCapText(item.frequency_cap)}</p>
      ${canEdit && html`<div class="grid">
        <${BudgetForm} item=${item} save=${save} />
        <${BidsForm} item=${item} save=${save} />
        <${FrequencyCapForm} item=${item} save=${save} />
      </div>
      <${TargetingForm} item=${item} save=${save} />`}
      ${!canEdit && html`<${LineItemFacts} item=${item} />`}
      <${MatchPreviewBox} session=${session} item=${item} />
      <h3>Creatives</h3>
      ${item.creatives.length === 0 && html`<p class="hint">None yet.</p>`}
      <ul>${item.creatives.map((creative) => html`<li key=${creative.id}><strong>${creative.title}</strong> — ${creative.body} <em>${creative.cta}</em> → ${creative.destination_url}</li>`)}</ul>
      ${canEdit && html`<${CreativeForm} item=${item} save=${save} />`}
    </section>`)}
    ${canEdit && campaign.status !== 'completed' && html`<${NewLineItemForm} session=${session} campaignId=${campaign.id} created=${lineItemAdded} />`}`;
}
