// Waiting on wall time, once for every part that does (the action path's timeout, the residents'
// pacing): timers that never hold the process open, behind an interface tests replace.

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a pending wait never keeps the gateway from exiting. */
export const wallTimers: Timers = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
