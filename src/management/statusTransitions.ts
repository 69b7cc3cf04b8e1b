import type { CampaignStatus, LineItemStatus } from './valueNormalization.js';

/** Spec rule "a created campaign starts paused": by create, compose and duplicate alike. */
export const createdCampaignStatus = 'paused' as const satisfies CampaignStatus;

/** Spec rule "a created line item starts draft": by create, compose and a duplicate's copies alike. */
export const createdLineItemStatus = 'draft' as const satisfies LineItemStatus;

/** Spec rule "draft maps to paused": a campaign has no draft state, so a campaign sent draft is paused. */
export const campaignStatusAliases = {
  draft: 'paused',
  paused: 'paused',
  active: 'active',
  completed: 'completed',
} as const satisfies Record<string, CampaignStatus>;

/** What a create may send as the status: the names that map to the status a created campaign starts in. */
export const createdCampaignStatusNames = Object.entries(campaignStatusAliases)
  .filter(([, status]) => status === createdCampaignStatus)
  .map(([name]) => name) as [string, ...string[]];

/**
 * The PATCH state machines. completed is final for both; staying in the same state is always
 * allowed (a no-op). Becoming active has preconditions checked elsewhere (activation rules).
 */
const campaignMoves: Record<CampaignStatus, readonly CampaignStatus[]> = {
  paused: ['active', 'completed'],
  active: ['paused', 'completed'],
  completed: [],
};

const lineItemMoves: Record<LineItemStatus, readonly LineItemStatus[]> = {
  draft: ['active', 'paused', 'completed'],
  active: ['paused', 'completed'],
  paused: ['active', 'completed'],
  completed: [],
};

/** Why a campaign cannot go from `from` to `to`, or undefined when it can. */
export function campaignTransitionError(from: CampaignStatus, to: CampaignStatus): string | undefined {
  if (from === to || campaignMoves[from].includes(to)) return undefined;
  return from === 'completed' ? 'a completed campaign is final' : `a campaign cannot go from ${from} to ${to}`;
}

/** Why a line item cannot go from `from` to `to`, or undefined when it can. */
export function lineItemTransitionError(from: LineItemStatus, to: LineItemStatus): string | undefined {
  if (from === to || lineItemMoves[from].includes(to)) return undefined;
  return from === 'completed' ? 'a completed line item is final' : `a line item cannot go from ${from} to ${to}`;
}

/** What a line item lacks to become active: serving can price it only with a budget and bids. */
export function activationGaps(lineItem: { budget: unknown; bids: unknown }): string[] {
  const gaps: string[] = [];
  if (lineItem.budget === null) gaps.push('budget');
  if (lineItem.bids === null) gaps.push('bids');
  return gaps;
}
