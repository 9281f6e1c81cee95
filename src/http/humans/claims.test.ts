// The claim book: a travel link lets one browser in as the person who arrived, once, before it
// expires; anything else is told why.
import { describe, expect, it } from "vitest";
import { CLAIMS_KEPT, ClaimBook, claimHash, newClaimSecret } from "./claims.ts";

describe("claims of arrivals from other gateways", () => {
  it("lets the secret's holder in once, then says it was used", () => {
    const book = new ClaimBook();
    const secret = newClaimSecret();
    book.record(claimHash(secret), "hum_ada");
    expect(book.take(secret)).toEqual({ ok: true, entityId: "hum_ada" });
    expect(book.take(secret)).toEqual({ ok: false, reason: "used" });
    expect(book.size).toBe(0);
  });

  it("knows neither a wrong secret nor one never recorded", () => {
    const book = new ClaimBook();
    const secret = newClaimSecret();
    book.record(claimHash(secret), "hum_ada");
    expect(book.take(`${secret}x`)).toEqual({ ok: false, reason: "unknown" });
    expect(new ClaimBook().take(secret)).toEqual({ ok: false, reason: "unknown" });
    // The wrong one took nothing: the right one still works.
    expect(book.take(secret)).toEqual({ ok: true, entityId: "hum_ada" });
  });

  it("refuses a claim past its time", () => {
    let now = 1_000;
    const book = new ClaimBook({ now: () => now, ttlMs: 500 });
    const secret = newClaimSecret();
    book.record(claimHash(secret), "hum_ada");
    now += 500;
    expect(book.take(secret)).toEqual({ ok: false, reason: "expired" });
    expect(book.take(secret)).toEqual({ ok: false, reason: "expired" });
  });

  it("keeps a bounded number, dropping the oldest", () => {
    const book = new ClaimBook();
    const first = newClaimSecret();
    book.record(claimHash(first), "hum_0");
    for (let i = 1; i <= CLAIMS_KEPT; i++) book.record(claimHash(`secret-number-${i}`), `hum_${i}`);
    expect(book.size).toBe(CLAIMS_KEPT);
    expect(book.take(first)).toEqual({ ok: false, reason: "expired" });
    expect(book.take(`secret-number-${CLAIMS_KEPT}`)).toEqual({ ok: true, entityId: `hum_${CLAIMS_KEPT}` });
  });

  it("hashes the same secret the same way, and different ones differently", () => {
    const secret = newClaimSecret();
    expect(claimHash(secret)).toBe(claimHash(secret));
    expect(claimHash(secret)).not.toBe(claimHash(newClaimSecret()));
    expect(claimHash(secret)).not.toContain(secret);
  });
});
