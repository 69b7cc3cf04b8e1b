/** The impression pixel's body: a 1x1 transparent GIF (43 bytes), the same for every verdict. */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** The pixel's headers besides its length and request id, as name, value, name, value (what writeHead takes). */
export const PIXEL_HEADERS = ['cache-control', 'no-store, max-age=0', 'cross-origin-resource-policy', 'cross-origin', 'content-type', 'image/gif'] as const;
