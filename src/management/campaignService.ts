import type { Postgres, SqlExecutor, TransactionExecutor } from '../store/postgres.js';
import { ApiError, type ErrorDetail } from '../http/errors.js';
import { keysetPageJson } from '../http/keysetPaging.js';
import {
  copyCampaign,
  deleteCampaign,
  findCampaign,
  insertCampaign,
  isMember,
  listCampaigns,
  lockCampaign,
  updateCampaign,
  type Campaign,
  type CampaignPage,
  type NewCampaign,
} from './campaignRepository.js';
import { CAMPAIGN_NAME_MAX, type ActivateInput, type CampaignInput, type CampaignPatch, type ComposeInput, type ValidateInput } from './campaignSchemas.js';
import { copyCreatives } from './creativeRepository.js';
import { activateLineItems, completeLineItems, copyLineItems, listLineItems } from './lineItemRepository.js';
import { addLineItem, campaignNotFound, normalizedLineItem, withCreatives } from './lineItemService.js';
import { activationGaps, campaignTransitionError, createdCampaignStatus } from './statusTransitions.js';
import { FLIGHT_ORDER_MESSAGE, flightInOrder } from './flightSchema.js';

const userNotMember = () => new ApiError('forbidden', 'user_id is not a member of this organization');

function newCampaign(input: CampaignInput): NewCampaign {
  return {
    user_id: input.user_id,
    name: input.name,
    brand_name: input.brand_name,
    objective: input.objective ?? null,
    starts_at: input.starts_at ?? null,
    ends_at: input.ends_at ?? null,
  };
}

/** The create response: the fields the spec lists, and the flight. */
function created(campaign: Campaign) {
  const { id, name, brand_name, user_id, status, objective, starts_at, ends_at, created_at } = campaign;
  return { id, name, brand_name, user_id, status, objective, starts_at, ends_at, created_at };
}

export async function createCampaign(db: SqlExecutor, organizationId: string, input: CampaignInput) {
  const campaign = await insertCampaign(db, organizationId, newCampaign(input));
  if (!campaign) throw userNotMember();
  return created(campaign);
}

/** Campaign and line item, inside the caller's transaction (src/http/createOnce.ts): a failure at any step leaves nothing behind. */
export async function composeCampaign(tx: TransactionExecutor, organizationId: string, input: ComposeInput) {
  const campaign = await insertCampaign(tx, organizationId, newCampaign(input.campaign));
  if (!campaign) throw userNotMember();
  const lineItem = await addLineItem(tx, campaign.id, input.line_item);
  return {
    campaign: { id: campaign.id, name: campaign.name, status: campaign.status, starts_at: campaign.starts_at, ends_at: campaign.ends_at },
    line_item: { id: lineItem.id, campaign_id: lineItem.campaign_id, title: lineItem.title, status: lineItem.status },
  };
}

/** The dry run: the same checks as create and compose (membership included), and nothing written. */
export async function validateCampaign(db: SqlExecutor, organizationId: string, input: ValidateInput) {
  if (input.campaign && !(await isMember(db, organizationId, input.campaign.user_id))) throw userNotMember();
  return {
    valid: true as const,
    campaign: input.campaign ? { ...newCampaign(input.campaign), status: createdCampaignStatus } : null,
    line_item: input.line_item ? { ...normalizedLineItem(input.line_item), creatives: input.line_item.creatives ?? [] } : null,
  };
}

export async function getCampaign(db: SqlExecutor, organizationId: string, campaignId: string): Promise<Campaign> {
  const campaign = await findCampaign(db, organizationId, campaignId);
  if (!campaign) throw campaignNotFound();
  return campaign;
}

/** Deletes the campaign with its line items and their creatives. */
export async function removeCampaign(db: SqlExecutor, organizationId: string, campaignId: string): Promise<void> {
  if (!(await deleteCampaign(db, organizationId, campaignId))) throw campaignNotFound();
}

/** A page in reporting's shape, as JSON text: total is the rows on this page; has_more when the page is full. */
export async function listCampaignPage(db: Postgres, organizationId: string, page: CampaignPage): Promise<Buffer> {
  const { data, rows, last } = await listCampaigns(db, organizationId, page);
  return keysetPageJson(data, rows, last, page);
}

/**
 * The activation rule, shared by POST activate and PATCH status=active: the campaign is not
 * completed, has at least one line item that is not completed, and each of those that becomes
 * active has a budget and bids. Then the campaign and those line items become active. With
 * `keep_line_items_paused` (POST activate only) a paused line item does not become active, so it
 * needs neither; the campaign still needs one line item that is not completed (the spec's condition).
 */
async function activateLocked(tx: TransactionExecutor, campaign: Campaign, { keep_line_items_paused: keepPaused = false }: ActivateInput = {}): Promise<void> {
  // Before the state check: the flight sweep may already have completed such a campaign.
  if (campaign.ends_at !== null && campaign.ends_at.getTime() <= Date.now()) {
    const message = 'the flight has ended (ends_at is past): set a later ends_at to activate';
    throw new ApiError('validation_error', message, [{ path: 'ends_at', message }]);
  }
  const refusal = campaignTransitionError(campaign.status, 'active');
  if (refusal) throw new ApiError('validation_error', refusal, [{ path: 'status', message: refusal }]);
  const open = (await listLineItems(tx, campaign.id)).filter((lineItem) => lineItem.status !== 'completed');
  if (open.length === 0) {
    const message = 'a campaign needs at least one line item that is not completed to be activated';
    throw new ApiError('validation_error', message, [{ path: 'line_items', message }]);
  }
  const activated = open.filter((lineItem) => !(keepPaused && lineItem.status === 'paused'));
  const gaps: ErrorDetail[] = activated.flatMap((lineItem) =>
    activationGaps(lineItem).map((gap) => ({
      path: `line_items.${lineItem.id}.${gap}`,
      message: `line item "${lineItem.title}" has no ${gap}`,
    })),
  );
  if (gaps.length > 0) throw new ApiError('validation_error', 'every line item needs a budget and bids to be activated', gaps);
  await activateLineItems(tx, campaign.id, keepPaused);
}

async function campaignWithLineItems(tx: SqlExecutor, campaign: Campaign) {
  return { campaign, line_items: await withCreatives(tx, await listLineItems(tx, campaign.id)) };
}

export async function activateCampaign(db: Postgres, organizationId: string, campaignId: string, options: ActivateInput = {}) {
  return db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, organizationId, campaignId);
    if (!campaign) throw campaignNotFound();
    await activateLocked(tx, campaign, options);
    return campaignWithLineItems(tx, await updateCampaign(tx, campaign.id, { status: 'active' }));
  });
}

/**
 * PATCH: active <-> paused, anything -> completed (its line items complete with it), nothing out
 * of completed. status=active is the activation rule itself. A flight bound sent here is checked
 * against the stored other bound.
 */
export async function patchCampaign(db: Postgres, organizationId: string, campaignId: string, patch: CampaignPatch) {
  return db.transaction(async (tx) => {
    const stored = await lockCampaign(tx, organizationId, campaignId);
    if (!stored) throw campaignNotFound();
    const flight = {
      starts_at: patch.starts_at !== undefined ? patch.starts_at : stored.starts_at?.toISOString(),
      ends_at: patch.ends_at !== undefined ? patch.ends_at : stored.ends_at?.toISOString(),
    };
    if (!flightInOrder(flight)) {
      throw new ApiError('validation_error', FLIGHT_ORDER_MESSAGE, [{ path: 'ends_at', message: FLIGHT_ORDER_MESSAGE }]);
    }
    // Activation judges the flight as this PATCH leaves it.
    const campaign = { ...stored, ends_at: flight.ends_at ? new Date(flight.ends_at) : null };
    if (patch.status === 'active') {
      await activateLocked(tx, campaign);
    } else if (patch.status !== undefined) {
      const refusal = campaignTransitionError(campaign.status, patch.status);
      if (refusal) throw new ApiError('validation_error', refusal, [{ path: 'status', message: refusal }]);
      if (patch.status === 'completed') await completeLineItems(tx, campaign.id);
    }
    return updateCampaign(tx, campaign.id, patch);
  });
}

const COPY_SUFFIX = ' (copy)';

/**
 * The default name of a copy: "<name> (copy)", the source's name cut (by code points, as the 200
 * limit counts) so that the whole stays a valid name: a 200-character name's copy would otherwise be
 * stored at 207, and a client PATCHing the copy back with the name it read would get a 422.
 */
function copyName(sourceName: string): string {
  const room = CAMPAIGN_NAME_MAX - COPY_SUFFIX.length;
  const codePoints = [...sourceName];
  const kept = codePoints.length <= room ? sourceName : codePoints.slice(0, room).join('').trimEnd();
  return `${kept}${COPY_SUFFIX}`;
}

/**
 * A paused copy of the campaign with its line items (draft), their budgets, bids, targeting and
 * creatives, in the caller's transaction (src/http/createOnce.ts). The source is locked first: on a Postgres
 * server each statement reads what is committed when it starts, so a DELETE committed between
 * reading the source and copying it would leave nothing (or only the campaign) to copy. Locked, a
 * DELETE already under way makes this 404 once it commits, and one that comes later waits for the whole copy.
 */
export async function duplicateCampaign(tx: TransactionExecutor, organizationId: string, campaignId: string, name?: string) {
  const source = await lockCampaign(tx, organizationId, campaignId);
  if (!source) throw campaignNotFound();
  const copy = await copyCampaign(tx, source.id, name ?? copyName(source.name));
  if (!copy) throw campaignNotFound();
  for (const { sourceId, lineItem } of await copyLineItems(tx, source.id, copy.id)) {
    await copyCreatives(tx, sourceId, lineItem.id);
  }
  return campaignWithLineItems(tx, copy);
}
