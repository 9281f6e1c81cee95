// Who signs a chat line that no actor said: the world's own notices, and objects that speak (a tour
// speaks as its guide). Every door names such a line by this one rule (the page, the replay's words).

import { WORLD_NOTICE_ENTITY_ID, WORLD_NOTICE_NAME } from "./fit-definition.ts";
import { objectType } from "./objects/object-registry.ts";
import type { WorldDefinition } from "./types.ts";

/** The name a line from `entityId` is signed with when no actor said it; undefined for an actor. */
export function speakerName(definition: WorldDefinition, entityId: string): string | undefined {
  if (entityId === WORLD_NOTICE_ENTITY_ID) return WORLD_NOTICE_NAME;
  if (!entityId.startsWith("obj_")) return undefined;
  for (const room of Object.values(definition.rooms)) {
    const def = room.objects.find((o) => o.id === entityId);
    if (def) return objectType(def.objectType)?.speaker?.(def);
  }
  return undefined;
}
