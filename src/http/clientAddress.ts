import type { IncomingMessage } from 'node:http';
import type { ProxyTrust } from './proxyTrust.js';

/** The app's trustProxy setting as fastify is given it (app.ts): no proxy, every hop, a hop count, or a trust function. */
export type TrustProxySetting = boolean | number | ProxyTrust;

/**
 * fastify's `request.ip` for a raw request under the app's trustProxy setting, for a route answered
 * before fastify makes a request (answerBeforeFastify.ts): the same walk as @fastify/proxy-addr
 * 5.1.3's `all` over @fastify/forwarded 3's list (the socket's address, then X-Forwarded-For's
 * entries from the last to the first), stopping at the first hop the setting does not trust, and
 * answering the last address reached. fastify 5 trusts no forwarded hop for a hop count (it cannot
 * vouch for the socket's peer), nor without the setting. Undefined for a socket already closed.
 */
export function clientAddressOf(setting: TrustProxySetting): (request: IncomingMessage) => string | undefined {
  if (typeof setting !== 'function') {
    if (setting !== true) return (request) => request.socket.remoteAddress;
    return (request) => forwardedFor(request).at(-1);
  }
  return (request) => {
    const socketAddress = request.socket.remoteAddress;
    // The usual answer without reading the header: a socket whose peer is no trusted proxy.
    if (!setting(socketAddress as string, 0)) return socketAddress;
    const addresses = forwardedFor(request);
    for (let hop = 1; hop < addresses.length - 1; hop++) if (!setting(addresses[hop]!, hop)) return addresses[hop];
    return addresses.at(-1);
  };
}

/** @fastify/forwarded's list: the socket's address, then the header's entries, last first, each cut of spaces and tabs. */
function forwardedFor(request: IncomingMessage): Array<string | undefined> {
  const header = request.headers['x-forwarded-for'];
  const socketAddress = request.socket.remoteAddress;
  if (!header || typeof header !== 'string') return [socketAddress];
  if (!header.includes(',')) {
    const remote = header.trim();
    return remote.length > 0 ? [socketAddress, remote] : [socketAddress];
  }
  const addresses: Array<string | undefined> = [socketAddress];
  let end = header.length;
  let start = end;
  for (let i = header.length - 1; i >= 0; i--) {
    const char = header[i];
    if (char === ' ' || char === '\t') {
      if (start === end) start = end = i;
    } else if (char === ',') {
      if (start !== end) addresses.push(header.slice(start, end));
      start = end = i;
    } else {
      start = i;
    }
  }
  if (start !== end) addresses.push(header.slice(start, end));
  return addresses;
}

/**
 * An address as some proxies write their X-Forwarded-For hop, with a port (`3.80.0.1:4433`, Azure
 * Application Gateway) or in brackets (`[2600:1900:4000::1]`, `[2600::1]:443`), as the bare address;
 * any other string as it is. Without this every event behind such a proxy would be `invalid_ip`.
 */
export function withoutPort(address: string): string {
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    const rest = address.slice(close + 1);
    return close > 0 && (rest === '' || /^:\d{1,5}$/.test(rest)) ? address.slice(1, close) : address;
  }
  // One colon after a dot: IPv4 with a port (an IPv6 address has two colons or more).
  const colon = address.indexOf(':');
  return colon > 0 && colon === address.lastIndexOf(':') && address.includes('.') && /^:\d{1,5}$/.test(address.slice(colon)) ? address.slice(0, colon) : address;
}
