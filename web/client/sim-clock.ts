// The world's simulation time as the page last heard it (a welcome, an event's tsMs), carried on by
// the page's own clock between messages: enough to say the time of day and how long a plant needs.
let heardMs: number | undefined;
let heardAt = 0;

/** The server said its simulation time was `serverTsMs` just now. */
export function heardSimTime(serverTsMs: number): void {
  if (!Number.isFinite(serverTsMs)) return;
  heardMs = serverTsMs;
  heardAt = performance.now();
}

/** The simulation time now, or undefined before the server said any. */
export function simNow(): number | undefined {
  return heardMs === undefined ? undefined : heardMs + (performance.now() - heardAt);
}
