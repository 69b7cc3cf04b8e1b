import type { IncomingHttpHeaders } from 'node:http';
import { clientHintsIvt } from '../ivt/clientHints.js';
import { readFetchMetadata, type FetchMetadata } from '../ivt/fetchMetadata.js';
import { serverSideIvt } from '../ivt/serverSideMarkers.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import { classifyVisitor, type Visitor } from './visitor.js';

/** What a tracking link's request says about itself: who sent it and how it was made. */
export interface LinkRequest {
  visitor: Visitor;
  fetch: FetchMetadata;
  /** `server_side` when a header only server code adds is present; '' otherwise. */
  serverSide: ReturnType<typeof serverSideIvt>;
  /** `client_hints_mismatch` when the Sec-CH-UA brands contradict the user agent (clientHints.ts); '' otherwise. */
  clientHints: ReturnType<typeof clientHintsIvt>;
  /** Whether any `Sec-CH-UA` came: a Chromium's navigation to a trustworthy origin always has it (navigationWithoutClientHints). */
  clientHintsSent: boolean;
}

/** `address`: the client's, as fastify's `request.ip` gives it (clientAddress.ts for a request fastify never saw). */
export function readLinkRequest(traffic: TrafficClassifier, address: string, headers: IncomingHttpHeaders): LinkRequest {
  return {
    visitor: classifyVisitor(traffic, address, headers['user-agent']),
    fetch: readFetchMetadata(headers),
    serverSide: serverSideIvt(headers),
    clientHints: clientHintsIvt(headers['sec-ch-ua'], headers['user-agent']),
    clientHintsSent: headers['sec-ch-ua'] !== undefined,
  };
}
