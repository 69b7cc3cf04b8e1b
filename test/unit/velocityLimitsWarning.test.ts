import { describe, expect, it } from 'vitest';
import { velocityLimitsWarning } from '../../src/tracking/velocityLimitsWarning.js';

const defaults = { IMPRESSION_VELOCITY_10S: 30, IMPRESSION_VELOCITY_10MIN: 600, IMPRESSION_BLOCK_VELOCITY_10S: 2000, IMPRESSION_BLOCK_VELOCITY_10MIN: 24_000 };

describe('the start warning about impression velocity behind a proxy', () => {
  it('warns when the network limits are off and a block limit is on, naming the settings to change', () => {
    const warning = velocityLimitsWarning({ ...defaults, IMPRESSION_VELOCITY_10S: 0, IMPRESSION_VELOCITY_10MIN: 0 });
    expect(warning).toContain('IMPRESSION_BLOCK_VELOCITY_10S=2000');
    expect(warning).toContain('set the block limits to 0 too');
  });

  it('says nothing for the defaults, for every limit off, or for network limits only raised', () => {
    expect(velocityLimitsWarning(defaults)).toBeUndefined();
    expect(velocityLimitsWarning({ IMPRESSION_VELOCITY_10S: 0, IMPRESSION_VELOCITY_10MIN: 0, IMPRESSION_BLOCK_VELOCITY_10S: 0, IMPRESSION_BLOCK_VELOCITY_10MIN: 0 })).toBeUndefined();
    expect(velocityLimitsWarning({ ...defaults, IMPRESSION_VELOCITY_10S: 1000, IMPRESSION_VELOCITY_10MIN: 0 })).toBeUndefined();
  });
});
