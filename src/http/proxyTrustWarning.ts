/**
 * What is wrong with a TRUST_PROXY setting that makes the client's address unreliable, said once in
 * the log at start (the setting is valid, so the service starts): undefined for none or a list of
 * addresses. Every event's invalid-traffic verdict and country are judged on that address.
 */
export function proxyTrustWarning(trustProxy: boolean | number | readonly string[]): string | undefined {
  if (trustProxy === true) {
    return 'TRUST_PROXY=true believes the leftmost X-Forwarded-For address, which any client writes itself: a bot or a data center passes as any address it names. Set TRUST_PROXY to the load balancers\' addresses instead';
  }
  if (typeof trustProxy === 'number') {
    return `TRUST_PROXY=${trustProxy} is a hop count, which trusts no proxy in fastify 5: behind a load balancer every event has the balancer's address (invalid traffic: private_ip). Set TRUST_PROXY to the load balancers' addresses instead`;
  }
  return undefined;
}
