// Each agent's last event cursor per room, so ocw_poll_events continues where it stopped without
// the model carrying cursors around. Process-wide: tools run in several plugin instances.
const KEY = Symbol.for("openclawworld.toolCursors");
const MAX_ENTRIES = 10_000;

function store(): Map<string, string> {
  const holder = globalThis as unknown as Record<symbol, Map<string, string> | undefined>;
  holder[KEY] ??= new Map();
  return holder[KEY];
}

export function rememberedCursor(agentId: string, roomId: string): string | undefined {
  return store().get(`${agentId}\0${roomId}`);
}

export function rememberCursor(agentId: string, roomId: string, cursor: string): void {
  const map = store();
  const key = `${agentId}\0${roomId}`;
  map.delete(key);
  map.set(key, cursor);
  // Oldest first in insertion order: bounded memory however many agents come and go.
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as string);
}

/** The context token of the agent's last heartbeat in a room, so ocw_heartbeat continues its delta
 * (and may embed an action) without the model carrying tokens around. */
export function rememberedContextToken(agentId: string, roomId: string): string | undefined {
  return store().get(`ctx\0${agentId}\0${roomId}`);
}

export function rememberContextToken(agentId: string, roomId: string, token: string): void {
  rememberCursor(`ctx\0${agentId}`, roomId, token);
}
