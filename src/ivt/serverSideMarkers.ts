import type { IncomingHttpHeaders } from 'node:http';
import type { IvtReason } from './ivtReasons.js';

/**
 * Request headers that only server code adds, whatever the address: a Cloudflare Worker's outbound
 * requests carry `CF-Worker` (its zone name), set by Cloudflare and not removable by the Worker. They
 * come from Cloudflare's network, which is a privacy relay for real people (ip_class relay, valid),
 * so the address alone cannot tell them apart.
 */
const serverSideHeaders = ['cf-worker'] as const;

/** `server_side` when the request carries one of the markers; '' otherwise. */
export function serverSideIvt(headers: IncomingHttpHeaders): Extract<IvtReason, 'server_side'> | '' {
  return serverSideHeaders.some((header) => headers[header] !== undefined) ? 'server_side' : '';
}
