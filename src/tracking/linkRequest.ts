import type { FastifyRequest } from 'fastify';
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
}

export function readLinkRequest(traffic: TrafficClassifier, request: FastifyRequest): LinkRequest {
  return {
    visitor: classifyVisitor(traffic, request.ip, request.headers['user-agent']),
    fetch: readFetchMetadata(request.headers),
    serverSide: serverSideIvt(request.headers),
  };
}
