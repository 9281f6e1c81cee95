// What happened, in words a person reads: names instead of entity ids, "Bo opened the Town Hall door"
// instead of an object id and a JSON patch. The follow page's events and the replay's markers say
// it this way (replay-desk.ts `markersOf`, follow-desk.ts), and their turns (`turnInWords`).
import type { AgentTurn } from "../runtime/history.ts";
import { speakerName } from "../world/speakers.ts";
import type { WorldDefinition, WorldEvent } from "../world/types.ts";

/** Names of what an event mentions: an entity's (its id when unknown), an object's, a room's. */
export interface Namer {
  entity(entityId: string): string;
  object(objectId: string): string;
  room(roomId: string): string;
}

/** Names for words: an entity's as `known` says (else its id without the prefix), an
 * object's and a room's from the world's definition. */
export function namerOf(definition: WorldDefinition, known: (entityId: string) => string | undefined): Namer {
  const objects = new Map(
    Object.values(definition.rooms).flatMap((room) =>
      room.objects.map((o) => [o.id, readable(o.name, o.objectType)] as const),
    ),
  );
  return {
    entity: (id) => speakerName(definition, id) ?? known(id) ?? id.replace(/^(agt|hum)_/, ""),
    object: (id) => objects.get(id) ?? id,
    room: (id) => definition.rooms[id]?.name ?? id,
  };
}

/** A map's object name read aloud: "door_meeting" is the "meeting door", "Town Hall door" stays. */
export function readable(name: string, objectType: string): string {
  const words = name.split(/[_-]+/).filter(Boolean);
  if (words.length > 1 && words[0] === objectType && (objectType === "door" || objectType === "seat"))
    return [...words.slice(1), words[0]].join(" ");
  return words.join(" ") || name;
}

/** One patch of an object, in words after its actor's name ("opened the Front door"). */
function objectChange(objectType: string, name: string, path: string, value: unknown): string {
  const field = path.replace(/^\//, "");
  if (objectType === "door" && field === "open") return `${value === true ? "opened" : "closed"} the ${name}`;
  if (objectType === "seat" && field === "occupant")
    return typeof value === "string" && value !== "" ? `sat down on the ${name}` : `got up from the ${name}`;
  if (objectType === "notice_board" && field === "notes") return `changed the notes on the ${name}`;
  if (objectType === "tour" && field === "started") return "started the tour";
  if (objectType === "tour" && field === "reached") return `reached the ${String(value)} on the tour`;
  if (objectType === "tour" && field === "finished") return "finished the tour";
  // A game's change comes a field at a time too: its sides, its cells and its result say it.
  if (objectType === "game_table" && (field === "red" || field === "yellow"))
    return value === "" ? `left the ${name}` : `took a side at the ${name}`;
  if (objectType === "game_table" && field === "cells") return `played at the ${name}`;
  if (objectType === "game_table" && field === "result")
    return value === "draw"
      ? `drew at the ${name}`
      : value === ""
        ? `began a new game at the ${name}`
        : `won at the ${name}`;
  // A plot's change comes a field at a time: its stage, its wilting and its watering say it.
  if (objectType === "garden_plot" && field === "stage")
    return value === "seedling"
      ? `planted the ${name}`
      : value === "empty"
        ? `cleared the ${name}`
        : `${String(value)} now`;
  if (objectType === "garden_plot" && field === "wilted")
    return value === true ? "wilted" : `revived the ${name}`;
  if (objectType === "garden_plot" && field === "wateredMs" && value !== 0) return `watered the ${name}`;
  return `changed the ${name} (${field})`;
}

/** An event in words; undefined for an event not worth a line. */
export function eventInWords(e: WorldEvent, names: Namer): string | undefined {
  const p = e.payload;
  const who = (id: unknown) => names.entity(String(id));
  switch (e.type) {
    case "chat.message":
      return `${who(p.fromEntityId)} said "${String(p.message)}"`;
    case "presence.join":
      return e.fromRoomId === undefined
        ? `${String(p.name ?? who(p.entityId))} came in`
        : `${String(p.name ?? who(p.entityId))} came from ${names.room(e.fromRoomId)}`;
    case "presence.leave":
      return e.toRoomId === undefined
        ? `${who(p.entityId)} left`
        : `${who(p.entityId)} went to ${e.toWorldId ? `another world's ${e.toRoomId}` : names.room(e.toRoomId)}`;
    case "proximity.enter":
      return `${who(p.otherId)} came near ${who(p.subjectId)}`;
    case "proximity.exit":
      return `${who(p.otherId)} went away from ${who(p.subjectId)}`;
    case "object.state_changed": {
      const objectId = String(p.objectId);
      const name = names.object(objectId);
      const patch = Array.isArray(p.patch) ? (p.patch as { path?: unknown; value?: unknown }[]) : [];
      const changes = patch.map((op) =>
        objectChange(String(p.objectType), name, String(op.path ?? ""), op.value),
      );
      const change = changes.join(" and ") || `changed the ${name}`;
      return e.actorId ? `${names.entity(e.actorId)} ${change}` : `the ${name}: ${change}`;
    }
    default:
      return undefined;
  }
}

/** A turn in a line: what it did and how it went ("Bo called chatSend (3 ms)", a resident's wake:
 * who woke it and why, its model requests and time). `entity` names an entity id. */
export function turnInWords(turn: AgentTurn, name: string, entity: (entityId: string) => string): string {
  const ms = `${Math.round(turn.ms)} ms`;
  if (turn.kind === "blocked") return `${name} was refused the tool ${turn.name} (${turn.status})`;
  if (turn.kind === "turn") {
    let woke = "";
    let model = "";
    try {
      const asked = JSON.parse(turn.request) as {
        wokenBy?: { reason?: string; fromEntityId?: string }[];
      };
      const by = (asked.wokenBy ?? []).map(
        (w) => `${w.fromEntityId ? entity(w.fromEntityId) : "someone"} (${w.reason ?? "?"})`,
      );
      if (by.length > 0) woke = ` woken by ${[...new Set(by)].join(", ")}`;
      const took = JSON.parse(turn.answer) as {
        modelRequests?: number;
        modelMs?: number;
        modelFailures?: number;
      };
      if (took.modelRequests !== undefined)
        model = `; ${took.modelRequests} model request${took.modelRequests === 1 ? "" : "s"}${took.modelMs === undefined ? "" : ` (${Math.round(took.modelMs)} ms)`}`;
      if (took.modelFailures) model += `, ${took.modelFailures} failed`;
    } catch {
      // A cut record (agent-turns.ts MAX_TURN_TEXT) is no longer JSON: the line goes without it.
    }
    return `${name} took a turn${woke}: ${turn.status === "ok" ? "done" : turn.status} in ${ms}${model}`;
  }
  const refused = turn.status === "ok" ? "" : `, refused: ${turn.status}`;
  return `${name} called ${turn.name} (${ms}${refused})`;
}
