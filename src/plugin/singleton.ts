// One world per gateway process. `register` runs several times and hot reloads re-evaluate modules,
// so the live host sits on globalThis behind a registered symbol, where the service, every plugin
// instance's tools and the HTTP routes all find the same one.
import type { WorldHost } from "./host.ts";

interface ProcessSlot {
  host: WorldHost | undefined;
}

const SLOT_KEY = Symbol.for("openclawworld.runtime");

export function processSlot(): ProcessSlot {
  const holder = globalThis as unknown as Record<symbol, ProcessSlot | undefined>;
  holder[SLOT_KEY] ??= { host: undefined };
  return holder[SLOT_KEY];
}

/** The running host, or undefined while the world service is not running in this process. */
export function activeHost(): WorldHost | undefined {
  return processSlot().host;
}
