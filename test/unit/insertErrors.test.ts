import { describe, expect, it } from 'vitest';
import { isRefusedForNow } from '../../src/tracking/insertErrors.js';

/** ClickHouse's errors as both clients give them: its numeric code as a string and its type name. */
const answered = (code: number, type: string, message = `Code: ${code}. DB::Exception: ${type}`) => Object.assign(new Error(message), { code: String(code), type });

describe('which refusals of a kept insert are about now, not its rows', () => {
  it('does not count a rotated password, a table an ALTER holds, a cancelled query or a quota against the rows', () => {
    // Counted against the rows, each would quarantine a write ClickHouse takes once the moment passes.
    for (const [code, type] of [
      [497, 'ACCESS_DENIED'],
      [516, 'AUTHENTICATION_FAILED'],
      [60, 'UNKNOWN_TABLE'],
      [473, 'DEADLOCK_AVOIDED'],
      [517, 'CANNOT_ASSIGN_ALTER'],
      [394, 'QUERY_WAS_CANCELLED'],
      [201, 'QUOTA_EXCEEDED'],
      [319, 'UNKNOWN_STATUS_OF_INSERT'],
      [243, 'NOT_ENOUGH_SPACE'],
    ] as const) {
      expect(isRefusedForNow(answered(code, type)), type).toBe(true);
    }
    expect(isRefusedForNow(new Error('connect ECONNREFUSED 127.0.0.1:8123'))).toBe(true);
  });

  it("counts a view's query failing on the rows", () => {
    expect(isRefusedForNow(answered(395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO'))).toBe(false);
    expect(isRefusedForNow(answered(469, 'VIOLATED_CONSTRAINT'))).toBe(false);
  });
});
