/**
 * The one way a feature that changes what serving serves (a placement certified or revoked, by an
 * operator, a review approval or auto-revocation) has this instance's ad index rebuilt at once
 * instead of on the next INDEX_REFRESH_MS poll. Serving provides the rebuild when its index is up;
 * before that there is nothing to refresh.
 */
export class ServingIndexRefresh {
  private rebuild: () => Promise<void> = async () => {};

  provide(rebuild: () => Promise<void>): void {
    this.rebuild = rebuild;
  }

  /** Resolves once the index holds every change committed before the call. */
  refreshNow(): Promise<void> {
    return this.rebuild();
  }
}
