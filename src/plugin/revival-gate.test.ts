// When a world the gateway stopped and never started again may reopen by itself: not when the
// gateway's config turns the plugin off, nor when that config cannot be read.
import { describe, expect, it } from "vitest";
import { turnedOff } from "./register.ts";

const id = "openclawworld";

describe("turnedOff", () => {
  it("lets the world reopen when the config keeps the plugin on", () => {
    expect(turnedOff(id, () => ({ plugins: { entries: { [id]: { enabled: true } } } }))).toBeUndefined();
    expect(turnedOff(id, () => ({}))).toBeUndefined();
    expect(turnedOff(id, () => ({ plugins: { allow: [id, "other"] } }))).toBeUndefined();
  });

  it("keeps it stopped when the config turns the plugin off, or cannot be read", () => {
    expect(turnedOff(id, () => ({ plugins: { enabled: false } }))).toMatch(/plugins are disabled/);
    expect(turnedOff(id, () => ({ plugins: { entries: { [id]: { enabled: false } } } }))).toMatch(
      /enabled is false/,
    );
    expect(turnedOff(id, () => ({ plugins: { deny: [id] } }))).toMatch(/plugins.deny/);
    expect(turnedOff(id, () => ({ plugins: { allow: ["other"] } }))).toMatch(/plugins.allow/);
    expect(
      turnedOff(id, () => {
        throw new Error("runtime gone");
      }),
    ).toMatch(/could not be read \(Error: runtime gone\)/);
  });
});
