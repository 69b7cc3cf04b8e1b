import type { Postgres, SqlExecutor, TransactionExecutor } from '../store/postgres.js';
import { ApiError } from '../http/errors.js';
import { findCampaign, lockCampaign } from './campaignRepository.js';
import { insertCreatives, listCreatives, type Creative } from './creativeRepository.js';
import type { CreativeInput } from './creativeSchema.js';
import {
  findLineItem,
  insertLineItem,
  listLineItems,
  lockLineItem,
  setBids,
  setBudget,
  setTargeting,
  touchLineItem,
  updateLineItem,
  type LineItem,
  type LineItemRecord,
} from './lineItemRepository.js';
import { storedBudget, zeroPricedBid, type Bids, type BudgetInput, type LineItemInput, type LineItemPatch } from './lineItemSchemas.js';
import { activationGaps, createdLineItemStatus, lineItemTransitionError } from './statusTransitions.js';
import type { Targeting } from './targetingSchema.js';

export const campaignNotFound = () => new ApiError('not_found', 'campaign not found');
const lineItemNotFound = () => new ApiError('not_found', 'line item not found');

/** Attaches each line item's creatives (one query for all of them). */
export async function withCreatives(db: SqlExecutor, records: LineItemRecord[]): Promise<LineItem[]> {
  const creatives = await listCreatives(
    db,
    records.map((record) => record.id),
  );
  const byLineItem = new Map<string, Creative[]>();
  for (const creative of creatives) {
    const list = byLineItem.get(creative.line_item_id) ?? [];
    list.push(creative);
    byLineItem.set(creative.line_item_id, list);
  }
  return records.map((record) => ({ ...record, creatives: byLineItem.get(record.id) ?? [] }));
}

/** The line item a LineItemInput describes, as it would be stored: draft until activation. */
export function normalizedLineItem(input: LineItemInput) {
  return {
    title: input.title,
    objective: input.objective ?? null,
    primary_kpi: input.primary_kpi ?? null,
    status: createdLineItemStatus,
    budget: input.budget ? storedBudget(input.budget) : null,
    bids: input.bids ?? null,
    targeting: input.targeting ?? {},
    frequency_cap: input.frequency_cap ?? null,
  };
}

/** Inserts a draft line item and its creatives inside the caller's transaction. */
export async function addLineItem(tx: TransactionExecutor, campaignId: string, input: LineItemInput): Promise<LineItem> {
  const record = await insertLineItem(tx, campaignId, normalizedLineItem(input));
  const creatives = input.creatives ? await insertCreatives(tx, record.id, input.creatives) : [];
  return { ...record, creatives };
}

/** Inside the caller's transaction (src/http/createOnce.ts). */
export async function createLineItem(tx: TransactionExecutor, organizationId: string, campaignId: string, input: LineItemInput) {
  // Locked so that a concurrent delete of the campaign cannot leave the insert without a parent.
  const campaign = await lockCampaign(tx, organizationId, campaignId);
  if (!campaign) throw campaignNotFound();
  return addLineItem(tx, campaign.id, input);
}

export async function listCampaignLineItems(db: SqlExecutor, organizationId: string, campaignId: string) {
  const campaign = await findCampaign(db, organizationId, campaignId);
  if (!campaign) throw campaignNotFound();
  return withCreatives(db, await listLineItems(db, campaign.id));
}

export async function getLineItem(db: SqlExecutor, organizationId: string, lineItemId: string): Promise<LineItem> {
  return shownWithCreatives(db, await findLineItem(db, organizationId, lineItemId));
}

/** A line item found (or updated) under tenancy, with its creatives; 404 when there was none. */
async function shownWithCreatives(db: SqlExecutor, record: LineItemRecord | null): Promise<LineItem> {
  if (!record) throw lineItemNotFound();
  const [lineItem] = await withCreatives(db, [record]);
  return lineItem!;
}

/**
 * PATCH: completed is final; becoming active needs a budget and bids (the same rule as campaign
 * activation), because serving cannot price a line item without them.
 */
export async function patchLineItem(db: Postgres, organizationId: string, lineItemId: string, patch: LineItemPatch) {
  return db.transaction(async (tx) => {
    const current = await lockLineItem(tx, organizationId, lineItemId);
    if (!current) throw lineItemNotFound();
    if (patch.status !== undefined) {
      const refusal = lineItemTransitionError(current.status, patch.status);
      if (refusal) throw new ApiError('validation_error', refusal, [{ path: 'status', message: refusal }]);
      const gaps = patch.status === 'active' ? activationGaps(current) : [];
      if (gaps.length > 0) {
        throw new ApiError(
          'validation_error',
          'a line item needs a budget and bids to become active',
          gaps.map((gap) => ({ path: gap, message: `set the ${gap} (PUT line-items/:id/${gap}) before activating` })),
        );
      }
    }
    return shownWithCreatives(tx, await updateLineItem(tx, current.id, patch));
  });
}

/** 422 on `bid_value`, nothing stored, when the line item's bid would price at 0 nano-USD in the budget's (new) currency. */
export async function putBudget(db: Postgres, organizationId: string, lineItemId: string, budget: BudgetInput) {
  return db.transaction(async (tx) => {
    const current = await lockLineItem(tx, organizationId, lineItemId);
    if (!current) throw lineItemNotFound();
    const problem = current.bids ? zeroPricedBid(current.bids, budget.currency) : undefined;
    if (problem) {
      const message = `the line item's bid_value ${current.bids?.bid_value} ${problem}; raise the bid (PUT line-items/:id/bids) before changing the currency`;
      throw new ApiError('validation_error', message, [{ path: 'bid_value', message }]);
    }
    return shownWithCreatives(tx, await setBudget(tx, organizationId, lineItemId, storedBudget(budget)));
  });
}

/** 422 on `bid_value`, nothing stored, for a bid that would price at 0 nano-USD in the line item's currency. */
export async function putBids(db: Postgres, organizationId: string, lineItemId: string, bids: Bids) {
  return db.transaction(async (tx) => {
    const current = await lockLineItem(tx, organizationId, lineItemId);
    if (!current) throw lineItemNotFound();
    const currency = current.budget?.currency ?? 'USD';
    const problem = zeroPricedBid(bids, currency);
    if (problem) throw new ApiError('validation_error', `bid_value ${problem}`, [{ path: 'bid_value', message: problem }]);
    return shownWithCreatives(tx, await setBids(tx, organizationId, lineItemId, bids));
  });
}

export async function putTargeting(db: SqlExecutor, organizationId: string, lineItemId: string, targeting: Targeting) {
  return shownWithCreatives(db, await setTargeting(db, organizationId, lineItemId, targeting));
}

/** Inside the caller's transaction (src/http/createOnce.ts). */
export async function attachCreatives(tx: TransactionExecutor, organizationId: string, lineItemId: string, creatives: CreativeInput[]) {
  const lineItem = await lockLineItem(tx, organizationId, lineItemId);
  if (!lineItem) throw lineItemNotFound();
  const stored = await insertCreatives(tx, lineItem.id, creatives);
  await touchLineItem(tx, lineItem.id);
  return stored;
}
