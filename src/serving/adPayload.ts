import { signTrackingToken, type TrackingClaims, type TrackingTokenFormat } from '../tracking/trackingToken.js';
import { claimIdsBytes } from '../tracking/trackingClaimsBytes.js';
import { trackingLinks } from '../tracking/trackingLinks.js';
import type { ContextualCardRender, LineItemEntry, ServableCreative } from './adIndex.js';
import type { Selection } from './selectAd.js';
import { newServeId } from './serveId.js';

export interface AdPayload {
  /** The serve id: the same id the tracking events of this ad carry. */
  id: string;
  format: 'contextual_card';
  render: ContextualCardRender;
  tracking: { impression_url: string; click_url: string };
}

export interface LinkSigning {
  trackingSecret: string;
  trackingBaseUrl: string;
  linkTtlSeconds: number;
  tokenFormat: TrackingTokenFormat;
}

/**
 * A serve's ad before it is written out. The serve id (newServeId) and the token
 * (signTrackingToken) are base64url: JSON carries them as they are, with nothing to escape.
 */
export interface SignedAd {
  id: string;
  render: ContextualCardRender;
  token: string;
}

/**
 * The ad for a selection, with one token signed over everything a billable event depends on (ids,
 * price model, price, expiry), so no byte of it can be altered; both tracking links carry it.
 */
export function signAd(
  selection: Selection,
  placementId: string,
  publisherId: string,
  signing: LinkSigning,
  nowMs = Date.now(),
  userKey?: string,
): SignedAd {
  const { lineItem, creative } = selection;
  const serveId = newServeId(nowMs);
  const claims: TrackingClaims = {
    s: serveId,
    c: lineItem.campaignId,
    l: lineItem.id,
    r: creative.id,
    p: placementId,
    u: publisherId,
    m: lineItem.model,
    n: lineItem.priceNanos,
    e: Math.floor(nowMs / 1000) + signing.linkTtlSeconds,
    t: nowMs,
    ...(userKey === undefined ? {} : { k: userKey }),
  };
  return { id: serveId, render: creative.render, token: signTrackingToken(claims, signing.trackingSecret, signing.tokenFormat, signing.tokenFormat === 2 ? claimIdsOf(lineItem, creative) : undefined) };
}

/**
 * Each served creative's campaign, line item and creative ids as the token's bytes, made on its
 * first serve and kept while the index keeps both the line item entry and the creative: writing the
 * three UUIDs was a fifth of signing a token (0.3 of 2.2 us in process). Keyed by the entry first,
 * then the creative, both weakly: an entry made anew (a patch) that reuses the creative makes them
 * again, and the entry it replaced is not kept alive by its creative.
 */
const claimIds = new WeakMap<LineItemEntry, WeakMap<ServableCreative, Uint8Array>>();

function claimIdsOf(lineItem: LineItemEntry, creative: ServableCreative): Uint8Array {
  let byCreative = claimIds.get(lineItem);
  const kept = byCreative?.get(creative);
  if (kept !== undefined) return kept;
  const bytes = claimIdsBytes(lineItem.campaignId, lineItem.id, creative.id);
  if (byCreative === undefined) claimIds.set(lineItem, (byCreative = new WeakMap()));
  byCreative.set(creative, bytes);
  return bytes;
}

/** The ad as an object, for answers fastify serializes (an `explain` serve). */
export function adPayload(ad: SignedAd, trackingBaseUrl: string): AdPayload {
  return { id: ad.id, format: 'contextual_card', render: ad.render, tracking: trackingLinks(trackingBaseUrl, ad.token) };
}

/** Each creative's render as JSON, made once: the index keeps one render object per creative for as long as it serves it. */
const renderJson = new WeakMap<ContextualCardRender, string>();
/** The links' JSON up to the token, for the one TRACKING_BASE_URL of a process. */
let linkPrefixes: { trackingBaseUrl: string; impression: string; click: string } | undefined;

/**
 * `JSON.stringify({ ad: adPayload(ad, trackingBaseUrl) })`, byte for byte (the test says so), with
 * the creative's part written once per creative and the links' fixed part once: JSON.stringify
 * scans every character of a string (0.8 us for a link of format 1's token), and serializing the
 * answer was 4-7% of a serve's CPU.
 */
export function adResponseJson(ad: SignedAd, trackingBaseUrl: string): string {
  let render = renderJson.get(ad.render);
  if (render === undefined) {
    render = JSON.stringify(ad.render);
    renderJson.set(ad.render, render);
  }
  if (linkPrefixes?.trackingBaseUrl !== trackingBaseUrl) {
    const { impression_url, click_url } = trackingLinks(trackingBaseUrl, '');
    linkPrefixes = { trackingBaseUrl, impression: JSON.stringify(impression_url).slice(0, -1), click: JSON.stringify(click_url).slice(0, -1) };
  }
  return `{"ad":{"id":"${ad.id}","format":"contextual_card","render":${render},"tracking":{"impression_url":${linkPrefixes.impression}${ad.token}","click_url":${linkPrefixes.click}${ad.token}"}}}`;
}
