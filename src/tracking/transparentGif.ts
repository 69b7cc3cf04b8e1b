/** The impression pixel's body: a 1x1 transparent GIF (43 bytes), the same for every verdict. */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
