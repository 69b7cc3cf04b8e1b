import { describe, expect, it } from 'vitest';
import { ivtReasons } from '../../src/ivt/ivtReasons.js';
import { ivtReasonLabels } from '../../web/console/ivtReasonText.js';

describe('console: invalid-traffic reasons in plain words', () => {
  it('has a label for every reason the API can answer, and for the publisher view\'s filtered', () => {
    expect(Object.keys(ivtReasonLabels).sort()).toEqual([...Object.keys(ivtReasons), 'filtered'].sort());
  });

  it('says each in words, not in the code', () => {
    for (const [reason, label] of Object.entries(ivtReasonLabels)) {
      expect(label, reason).not.toMatch(/_/);
      expect(label, reason).not.toBe(reason);
    }
  });
});
