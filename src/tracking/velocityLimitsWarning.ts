import type { Config } from '../config.js';

type VelocityLimits = Pick<Config, 'IMPRESSION_VELOCITY_10S' | 'IMPRESSION_VELOCITY_10MIN' | 'IMPRESSION_BLOCK_VELOCITY_10S' | 'IMPRESSION_BLOCK_VELOCITY_10MIN'>;

/**
 * Said once in the log at start: impression velocity per network turned off while the per-block
 * limits (session 41) are on. Until then the docs told deployments whose readers all reach the
 * service from one proxy address to turn the network limits off; that address is one block too, so
 * after the upgrade each publisher's tCPM impressions past the block limits (40 a second) would be
 * stored as impression_velocity, unbilled, with nothing said (rev41 R8).
 */
export function velocityLimitsWarning(limits: VelocityLimits): string | undefined {
  const networkOff = limits.IMPRESSION_VELOCITY_10S === 0 && limits.IMPRESSION_VELOCITY_10MIN === 0;
  const blockOn = limits.IMPRESSION_BLOCK_VELOCITY_10S > 0 || limits.IMPRESSION_BLOCK_VELOCITY_10MIN > 0;
  if (!networkOff || !blockOn) return undefined;
  return `IMPRESSION_VELOCITY_10S and _10MIN are 0 but IMPRESSION_BLOCK_VELOCITY_10S=${limits.IMPRESSION_BLOCK_VELOCITY_10S} and _10MIN=${limits.IMPRESSION_BLOCK_VELOCITY_10MIN} still cap each publisher's impressions from one /24 or /48: if readers reach this service from a few proxy addresses (TRUST_PROXY cannot name them), set the block limits to 0 too, or impressions past them are stored as impression_velocity, unbilled`;
}
