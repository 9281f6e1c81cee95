// The player using an object: the interaction is sent at once; when the object is out of reach the
// world says so, the player walks to the tile the server chose and it is sent again on arrival, once.
import type { Connection, ServerMessage } from "./net.ts";
import { notify } from "./notice-list.ts";
import { noticeForOutcome } from "./notices.ts";
import type { ObjectCard } from "./object-card.ts";
import { prettyName } from "./object-name.ts";
import { $, state } from "./page-state.ts";
import { naturalAction, type WorldScene } from "./scene.ts";

export interface ObjectUse {
  use(objectId: string, action: string, params?: Record<string, unknown>): void;
  /** The world's answer to an `interact` or an `approach`. */
  onResult(message: ServerMessage): void;
  /** A frame with the viewer at `me`: on the tile it walked to, the interaction goes again. */
  arrive(me: { x: number; y: number }, tileSize: number): void;
  /** The player did something else (walked, clicked someone, was refused): nothing is pending. */
  forget(): void;
}

export function mountObjectUse(connection: Connection, scene: WorldScene, card: ObjectCard): ObjectUse {
  /** An interaction the player asked for. While `walking`, the player heads for `dest` (a tile the
   * server chose within reach of the object) and the interaction is sent again on arrival, once. */
  let pending:
    | {
        objectId: string;
        action: string;
        params?: Record<string, unknown>;
        walking: boolean;
        dest?: { tx: number; ty: number };
        tries: number;
      }
    | undefined;

  function sendInteract(objectId: string, action: string, params?: Record<string, unknown>): void {
    connection.send({ type: "interact", targetId: objectId, action, ...(params ? { params } : {}) });
  }

  /** Uses an object (walking over first when it is out of reach: see onResult). */
  function useObject(objectId: string, action: string, params?: Record<string, unknown>): void {
    pending = { objectId, action, ...(params ? { params } : {}), walking: false, tries: 0 };
    sendInteract(objectId, action, params);
  }

  function onResult(message: ServerMessage): void {
    state.lastResult = message;
    if (message.for === "approach") {
      if (!pending || pending.objectId !== message.data?.targetId) return;
      pending.dest = message.data.dest as { tx: number; ty: number };
      return;
    }
    if (message.for !== "interact") return;
    const outcome = message.data?.outcome as { type: string; message?: string } | undefined;
    if (!outcome) return;
    if (outcome.type === "too_far" && pending && pending.tries < 2) {
      pending.tries += 1;
      pending.walking = true;
      pending.dest = undefined;
      connection.send({ type: "approach", targetId: pending.objectId });
      // Said once per click: a second walk (the first ended out of reach) is the same errand.
      if (pending.tries === 1) notify("Walking over…", "info");
      return;
    }
    const target = pending ? scene.object(pending.objectId) : undefined;
    const action = pending?.action;
    pending = undefined;
    if (target && action === "read" && outcome.type === "ok") {
      const title =
        target.objectType === "notice_board"
          ? String(target.state.title ?? "Notice board")
          : target.objectType === "private_room"
            ? (scene.placeNamed(String(target.state.region))?.name ?? "Private room")
            : target.objectType === "garden_plot"
              ? `Garden plot: ${prettyName(target)}`
              : prettyName(target);
      card.show(title, outcome.message ?? "", target);
      return;
    }
    if (target?.objectType === "notice_board" && action === "post" && outcome.type === "ok")
      $<HTMLInputElement>("dialog-post-text").value = "";
    // A table's card shows the board as it changes; its long answer (the board in text) is for agents.
    if (target?.objectType === "game_table" && outcome.type === "ok") return;
    // A portal's own message names the room by id; the arrival notice names it properly.
    if (target?.objectType === "portal" && outcome.type === "ok") return;
    const n = noticeForOutcome(outcome);
    if (n) notify(n.text, n.kind);
  }

  function arrive(me: { x: number; y: number }, size: number): void {
    if (!pending?.walking || !pending.dest) return;
    const at = { x: (pending.dest.tx + 0.5) * size, y: (pending.dest.ty + 0.5) * size };
    if (Math.abs(me.x - at.x) <= 2 && Math.abs(me.y - at.y) <= 2) {
      pending.walking = false;
      const target = scene.object(pending.objectId);
      // A click means the object's natural action as it is on arrival (a door someone opened since);
      // a deliberate action (a note to post) is sent as asked.
      const action = pending.params || !target ? pending.action : (naturalAction(target) ?? pending.action);
      pending.action = action;
      sendInteract(pending.objectId, action, pending.params);
    }
  }

  return {
    use: useObject,
    onResult,
    arrive,
    forget() {
      pending = undefined;
    },
  };
}
