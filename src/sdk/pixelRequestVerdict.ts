import type { RecentImpression } from './recentImpressions.js';

/**
 * How a pixel request was made, from its Sec-Fetch-Dest: `image` (an image load, as the spec
 * requires), `script_fetch` (fetch, XMLHttpRequest or sendBeacon: dest `empty`), `other` (an iframe,
 * a document, a script tag...) or `no_metadata` (the browser sent no Fetch Metadata: older browsers,
 * or a page not served over HTTPS; a server usually sends none either).
 */
export type RequestedAs = 'image' | 'script_fetch' | 'other' | 'no_metadata';

export function requestedAs(fetchDest: string): RequestedAs {
  if (fetchDest === '') return 'no_metadata';
  if (fetchDest === 'image') return 'image';
  if (fetchDest === 'empty') return 'script_fetch';
  return 'other';
}

type PixelVerdict = 'as_required' | 'not_as_required' | 'cannot_tell' | 'no_impressions';

export interface PixelRule {
  /**
   * as_required: no impression came from a server, and those that say how they were made were image
   * loads (at least one did). not_as_required: some came from a server or were not image loads.
   * cannot_tell: none from a server, but none said how it was made. no_impressions: nothing to judge.
   */
  verdict: PixelVerdict;
  /** The verdict in a sentence, with the numbers and what to change. */
  message: string;
}

/** Whether the listed impressions show the pixel fired the way the spec requires: an image request from the end user's browser. */
export function pixelRule(impressions: readonly RecentImpression[]): PixelRule {
  const total = impressions.length;
  if (total === 0) {
    return { verdict: 'no_impressions', message: 'No impressions in the window: render an ad in a browser, scroll it into view, then check again.' };
  }
  const fromServers = impressions.filter((impression) => impression.origin === 'server').length;
  const notImages = impressions.filter((impression) => impression.requested_as === 'script_fetch' || impression.requested_as === 'other').length;
  const images = impressions.filter((impression) => impression.requested_as === 'image').length;
  const problems: string[] = [];
  if (fromServers > 0) {
    problems.push(
      `${fromServers} of ${total} impressions were requested by a server (a data-center address, server code or a client that is not a browser): ` +
        "the pixel must be requested by the end user's browser, never from the publisher's backend.",
    );
  }
  if (notImages > 0) {
    problems.push(
      `${notImages} of ${total} impressions were not image requests (a script fetch or another kind of request): ` +
        'load impression_url as an image (new Image().src = impression_url), never with fetch or XMLHttpRequest.',
    );
  }
  if (problems.length > 0) return { verdict: 'not_as_required', message: `The pixel does not fire the way the spec requires. ${problems.join(' ')}` };
  if (images === 0) {
    return {
      verdict: 'cannot_tell',
      message:
        `None of the ${total} impressions came from a server, but none sent Fetch Metadata (older browsers, or a page not on HTTPS), so how the pixel ` +
        'was requested cannot be told: confirm in the browser developer tools that it is an image request.',
    };
  }
  return {
    verdict: 'as_required',
    message:
      `The pixel fires the way the spec requires: none of the ${total} impressions came from a server, and the ${images} that said how ` +
      'they were made were image requests.',
  };
}
