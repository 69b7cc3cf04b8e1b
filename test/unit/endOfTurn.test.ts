import { describe, expect, it } from 'vitest';
import { atEndOfTurn, endOfTurn } from '../../src/http/endOfTurn.js';

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

  it("calls back after the turn's ticks and promise callbacks, in the order called, with the promise's waiters in the same turn", async () => {
    const order: string[] = [];
    atEndOfTurn(() => order.push('first answer'));
    void endOfTurn().then(() => order.push('async route'));
    atEndOfTurn(() => {
      order.push('second answer');
      // Called while the turn's callbacks run: waits for the next turn's end.
      atEndOfTurn(() => order.push('next turn'));
    });
    process.nextTick(() => order.push('tick'));
    void Promise.resolve().then(() => order.push('promise callback'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order).toEqual(['promise callback', 'tick', 'first answer', 'second answer', 'async route']);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order.at(-1)).toBe('next turn');
  });
});
