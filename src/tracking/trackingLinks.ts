/** The paths of the two tracking links; serving builds them, tracking routes answer them. */
export const IMPRESSION_PATH = '/v1/t/i/';
export const CLICK_PATH = '/v1/t/c/';

/** Both links of one serve carry the same signed token; the path says which event it is. */
export function trackingLinks(trackingBaseUrl: string, token: string) {
  return {
    impression_url: `${trackingBaseUrl}${IMPRESSION_PATH}${token}`,
    click_url: `${trackingBaseUrl}${CLICK_PATH}${token}`,
  };
}
