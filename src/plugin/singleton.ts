// One world per gateway process. `register` runs several times and hot reloads re-evaluate modules,
// so the live host sits on globalThis behind a registered symbol, where the service, every plugin
// instance's tools and the HTTP routes all find the same one.
import type { StandbyView } from "./cluster-host.ts";
import type { WorldHost } from "./host.ts";

/** Why the world service is not running yet while it retries (operator status only). */
export interface StartWait {
  reason: string;
  /** Tries so far. */
  attempts: number;
  nextRetryInMs: number;
  /** A cluster gateway standing by: the directory as read at the last try (who to send callers to). */
  cluster?: StandbyView;
}

/** The world reopened by the plugin itself: the gateway stopped its service and started none again. */
export interface Revived {
  reason: string;
  /** When it was reopened (ISO time). */
  at: string;
  /** The plugin's request to the gateway to load it again (`openclaw plugins reload`), once made. */
  gatewayReload?: { state: "asked" | "done" | "failed"; at: string; detail?: string };
}

interface ProcessSlot {
  host: WorldHost | undefined;
  /** Set while the service waits to open its store (it is locked by another process). */
  waiting?: StartWait | undefined;
  /** Counts the starts, stops and revivals of every generation of the service in this process: an
   * open that finishes after a newer one began is let go, so one world runs per process. */
  generation: number;
  /** Armed by a stop, cleared by the next start: brings the world back if no start comes. */
  revival?: { cancel(): void } | undefined;
  /** The signal the gateway got to stop, once it got one (a stopping gateway's world stays stopped). */
  shutdown?: { signal?: string };
  /** Set while the world runs because the plugin reopened it (operator status). */
  revived?: Revived | undefined;
}

const SLOT_KEY = Symbol.for("openclawworld.runtime");

export function processSlot(): ProcessSlot {
  const holder = globalThis as unknown as Record<symbol, ProcessSlot | undefined>;
  holder[SLOT_KEY] ??= { host: undefined, generation: 0 };
  holder[SLOT_KEY].generation ??= 0;
  return holder[SLOT_KEY];
}

/** The running host, or undefined while the world service is not running in this process. */
export function activeHost(): WorldHost | undefined {
  return processSlot().host;
}
