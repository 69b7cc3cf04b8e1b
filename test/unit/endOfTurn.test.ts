import { describe, expect, it } from 'vitest';
import { endOfTurn } from '../../src/http/endOfTurn.js';

describe('endOfTurn', () => {
  it("is one wait for every caller of a turn, resolved after the turn's ticks and promise callbacks", async () => {
    const order: string[] = [];
    const first = endOfTurn();
    const second = endOfTurn();
    expect(second).toBe(first);
    void first.then(() => order.push('first answer'));
    void second.then(() => order.push('second answer'));
    process.nextTick(() => order.push('tick'));
    void Promise.resolve().then(() => order.push('promise callback'));
    await first;
    expect(order).toEqual(['promise callback', 'tick', 'first answer', 'second answer']);
  });

  it('waits again in the next turn', async () => {
    const before = endOfTurn();
    await before;
    const after = endOfTurn();
    expect(after).not.toBe(before);
    let resolved = false;
    void after.then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    await after;
    expect(resolved).toBe(true);
  });
});
