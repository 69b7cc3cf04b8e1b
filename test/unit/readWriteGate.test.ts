import { describe, expect, it } from 'vitest';
import { ReadWriteGate } from '../../src/tracking/readWriteGate.js';

/** A step that records when it starts and ends, and ends when the test says. */
function step(log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    run: async () => {
      log.push(`${name} starts`);
      await ended;
      log.push(`${name} ends`);
    },
    end,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('read-write gate: reads of ClickHouse between the pipeline writes', () => {
  it('runs steps of one side together, a read only once the writes under way end, and the writes after it once it ends', async () => {
    const gate = new ReadWriteGate();
    const log: string[] = [];
    const [w1, w2, r, w3] = [step(log, 'w1'), step(log, 'w2'), step(log, 'r'), step(log, 'w3')];
    const done = [gate.run('write', w1.run), gate.run('write', w2.run)];
    await turn();
    done.push(gate.run('read', r.run));
    // Behind the waiting read: a stream of writes never keeps it waiting.
    done.push(gate.run('write', w3.run));
    await turn();
    expect(log).toEqual(['w1 starts', 'w2 starts']);
    w1.end();
    await turn();
    expect(log).toEqual(['w1 starts', 'w2 starts', 'w1 ends']);
    w2.end();
    await turn();
    expect(log).toEqual(['w1 starts', 'w2 starts', 'w1 ends', 'w2 ends', 'r starts']);
    r.end();
    await turn();
    expect(log.slice(5)).toEqual(['r ends', 'w3 starts']);
    w3.end();
    await Promise.all(done);
  });

  it('lets the next step in when one fails', async () => {
    const gate = new ReadWriteGate();
    await expect(gate.run('write', () => Promise.reject(new Error('insert failed')))).rejects.toThrow('insert failed');
    await expect(gate.run('read', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
