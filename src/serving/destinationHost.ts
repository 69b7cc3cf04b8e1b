/** Host names by the text of a URL up to the first '/' after the host begins: all its host is parsed from. */
const hostByUrlStart = new Map<string, string | undefined>();
const HOST_CACHE_LIMIT = 50_000;

/**
 * The host name of a destination URL, or undefined when it is not a URL. An advertiser's creatives
 * share a few sites: parsing each URL in full was a seventh of building an index of 100,000 line items.
 */
export function hostOf(url: string): string | undefined {
  let authority = url.indexOf('//');
  if (authority >= 0) while (url[authority] === '/' || url[authority] === '\\') authority += 1;
  const end = authority < 0 ? -1 : url.indexOf('/', authority);
  const key = end < 0 ? url : url.slice(0, end);
  if (hostByUrlStart.has(key)) return hostByUrlStart.get(key);
  let host: string | undefined;
  try {
    host = new URL(url).hostname;
  } catch {
    host = undefined;
  }
  if (hostByUrlStart.size >= HOST_CACHE_LIMIT) hostByUrlStart.clear();
  hostByUrlStart.set(key, host);
  return host;
}

/** Whether a creative with this destination can be served (it is a URL): a CreativeGroup is made only where one is. */
export function isServableDestination(destinationUrl: string): boolean {
  return hostOf(destinationUrl) !== undefined;
}
