import type { FastifyBaseLogger, RouteShorthandOptions } from 'fastify';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The part of a pino logger this reads: the numbers of the level names, and its own level's. */
interface PinoLevels {
  levels: { values: Record<string, number> };
  levelVal: number;
  isLevelEnabled(level: string): boolean;
}

/**
 * A route's `childLoggerFactory` that makes the request's child logger (pino's child, with the
 * request id bound) only once something logs at or above the child's level. fastify makes one per
 * request; on the tracking links, which log at warn, nothing usually does, and building the child
 * (its bindings serialized to JSON) was 1.4% of a pixel's CPU. A line that is logged is the same line
 * the eager child would have written. A logger that is not pino's (no logger at all) is passed through.
 */
export const lazyChildLogger: NonNullable<RouteShorthandOptions['childLoggerFactory']> = function (logger, bindings, options) {
  const pino = logger as unknown as Partial<PinoLevels>;
  if (typeof pino.levels?.values !== 'object' || typeof pino.levelVal !== 'number') return logger.child(bindings, options);
  const levelVal = options.level === undefined ? pino.levelVal : pino.levels.values[options.level];
  if (levelVal === undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger, bindings, options, pino.levels.values, levelVal) as unknown as FastifyBaseLogger;
};

class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Parameters<FastifyBaseLogger['child']>[0],
    private readonly options: NonNullable<Parameters<FastifyBaseLogger['child']>[1]>,
    private readonly values: Record<string, number>,
    private readonly levelVal: number,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return this.made ? (this.made as FastifyBaseLogger & PinoLevels).isLevelEnabled(level) : (this.values[level] ?? Infinity) >= this.levelVal;
  }

  child(bindings: Parameters<FastifyBaseLogger['child']>[0], options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  private log(method: LogMethod, args: unknown[]): void {
    // Once made, the child itself decides (its level may have been changed through it).
    if (this.made === undefined && this.values[method]! < this.levelVal) return;
    const logger = this.logger;
    (logger[method] as (...rest: unknown[]) => void).apply(logger, args);
  }
}
