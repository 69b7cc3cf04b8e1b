type Side = 'read' | 'write';

/**
 * Lets steps of one side run together and never alongside a step of the other: the event
 * pipeline's writes to ClickHouse on one side, the counters' reads of what ClickHouse holds on the
 * other (EventPipeline.readBetweenWrites). Steps wait in the order they came, so a stream of writes
 * never keeps a read waiting for longer than the writes already under way, nor reads the writes.
 */
export class ReadWriteGate {
  private active = 0;
  private side: Side | undefined;
  private readonly waiting: Array<{ side: Side; start: () => void }> = [];

  async run<T>(side: Side, step: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && (this.active === 0 || this.side === side)) {
      this.side = side;
      this.active += 1;
    } else {
      // Counted as active by leave(), which starts it.
      await new Promise<void>((start) => this.waiting.push({ side, start }));
    }
    try {
      return await step();
    } finally {
      this.leave();
    }
  }

  private leave(): void {
    this.active -= 1;
    if (this.active > 0) return;
    this.side = this.waiting[0]?.side;
    while (this.waiting[0] !== undefined && this.waiting[0].side === this.side) {
      this.active += 1;
      this.waiting.shift()?.start();
    }
  }
}
