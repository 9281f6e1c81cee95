// The rate limiter's settle before the per-turn batching (src/aic/rate-limit.ts at commit d5fc3a5),
// kept only as the "before" of bench/durability.bench.ts, run in the same process: every read that
// took a token wrote the changed buckets at once, one sqlite transaction per read. Not used by the
// product.
import { RateLimiter } from "../../src/aic/rate-limit.ts";

export class SettlePerReadLimiter extends RateLimiter {
  private write: (() => void) | undefined;

  override persist(settle: () => void): void {
    super.persist(settle);
    this.write = settle;
  }

  override settled(): Promise<void> {
    try {
      // The side tables write nothing when nothing changed, as the old `settle()` did.
      this.write?.();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
