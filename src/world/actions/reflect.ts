// An agent stores a reflection in its own memory (memory.ts). The agent must be in the world (a
// reflection is by an agent that inhabits it, seed 003) and may only cite events its world logged.
import { fail } from "../core.ts";
import { AGENT_ENTITY_PREFIX } from "../ids.ts";
import type { MemorySource } from "../memory.ts";
import { MEMORY_LIMITS, TOPIC_PATTERN } from "../memory.ts";
import { bad, defineAction, isInt, isPlainObject } from "./action.ts";

declare module "../types.ts" {
  interface ActionInputs {
    /** An agent stores a reflection in its own memory (memory.ts); only `agt_` entities have memory. */
    reflect: { content: string; topics: string[]; sources: MemorySource[]; importance: number };
  }
  interface ActionValues {
    reflect: { id: string; evicted?: string };
  }
}

export const reflect = defineAction({
  kind: "reflect",
  rateClass: "reflect",
  freeText: true,
  /** The shape and bounds (memory.ts); whether its sources exist is the rule's to check. */
  check(i) {
    if (!i.entityId.startsWith(AGENT_ENTITY_PREFIX))
      return bad(`only agents (${AGENT_ENTITY_PREFIX}...) have a memory to reflect into`);
    if (typeof i.content !== "string" || i.content.trim().length === 0)
      return bad("content must be a non-blank string");
    if (i.content.length > MEMORY_LIMITS.contentChars)
      return bad(`content is longer than ${MEMORY_LIMITS.contentChars} characters`, {
        length: i.content.length,
        max: MEMORY_LIMITS.contentChars,
      });
    if (!Array.isArray(i.topics) || i.topics.length > MEMORY_LIMITS.topics)
      return bad(`topics must be an array of at most ${MEMORY_LIMITS.topics} topics`);
    for (const topic of i.topics) {
      if (typeof topic !== "string" || !TOPIC_PATTERN.test(topic))
        return bad(`topic ${JSON.stringify(topic)} must match ${TOPIC_PATTERN.source}`);
    }
    if (new Set(i.topics).size !== i.topics.length) return bad("topics must be unique");
    if (!Array.isArray(i.sources) || i.sources.length > MEMORY_LIMITS.sources)
      return bad(`sources must be an array of at most ${MEMORY_LIMITS.sources} sources`);
    for (const source of i.sources) {
      if (!isPlainObject(source) || typeof source.roomId !== "string" || !isInt(source.seq) || source.seq < 1)
        return bad("a source is {roomId, seq} with seq >= 1");
    }
    const importance = i.importance;
    if (typeof importance !== "number" || !(importance >= 0 && importance <= 1))
      return bad("importance must be a number from 0 to 1");
    return undefined;
  },
  apply(w, input) {
    if (!w.actors.has(input.entityId))
      return fail("agent_not_in_room", `${input.entityId} is not in the world`);
    for (const source of input.sources) {
      const room = w.rooms.get(source.roomId);
      if (!room) return fail("bad_request", `source room "${source.roomId}" does not exist`);
      if (source.seq > room.log.lastSeq)
        return fail("bad_request", `source event ${source.seq} of room "${source.roomId}" has not happened`, {
          lastSeq: room.log.lastSeq,
        });
    }
    const stored = w.memoryFor(input.entityId).reflect({
      tsMs: w.serverTsMs,
      content: input.content,
      topics: [...input.topics],
      sources: input.sources.map((s) => ({ roomId: s.roomId, seq: s.seq })),
      importance: input.importance,
    });
    return { ok: true, value: { kind: "reflect", ...stored } };
  },
});
