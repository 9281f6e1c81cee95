// Random input scripts for determinism tests: a command is a tuple of small integers, so fast-check
// can generate and shrink them and a seeded generator can build the same script in another process.
import fc from "fast-check";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { canonicalHash, sha256Hex } from "../snapshot.ts";
import type { Input, WorldDefinition } from "../types.ts";
import type { World } from "../world.ts";

export const ACTORS = ["agt_a", "agt_b", "hum_c", "hum_d", "agt_e"] as const;
/** [actor, kind, a, b, c] with each in 0..999. */
export type Command = [number, number, number, number, number];
/** One tick's commands. */
export type Script = Command[][];

const commandArb = fc.tuple(
  fc.nat(999),
  fc.nat(999),
  fc.nat(999),
  fc.nat(999),
  fc.nat(999),
) as fc.Arbitrary<Command>;
/** fast-check arbitrary of a script of exactly `ticks` ticks, up to 3 commands each. */
export const scriptArb = (ticks: number): fc.Arbitrary<Script> =>
  fc.array(fc.array(commandArb, { maxLength: 3 }), { minLength: ticks, maxLength: ticks });

export function commandToInput(def: WorldDefinition, cmd: Command): Input {
  const [actorIx, kindIx, a, b, c] = cmd;
  const entityId = ACTORS[actorIx % ACTORS.length]!;
  const roomIds = Object.keys(def.rooms).sort();
  const objects = roomIds.flatMap((r) => def.rooms[r]!.objects);
  const tx = c % 4 === 0 ? { tx: { key: `${entityId}:tx_${c % 7}`, payloadHash: `h${a % 2}` } } : {};
  switch (kindIx % 8) {
    case 0:
      return {
        kind: "join",
        entityId,
        actorKind: entityId.startsWith("hum_") ? "human" : "agent",
        name: entityId,
        joinRoomId: roomIds[a % roomIds.length]!,
        ...tx,
      };
    case 1:
      return b % 5 === 0
        ? { kind: "leave", entityId, reason: "disconnect", ...tx }
        : { kind: "moveDir", entityId, dx: (a % 3) - 1, dy: (b % 3) - 1 };
    case 2:
    case 3:
      return { kind: "moveTo", entityId, dest: { tx: (a % 52) - 2, ty: (b % 36) - 2 }, ...tx };
    case 4:
      return { kind: "moveDir", entityId, dx: (a % 3) - 1, dy: (b % 3) - 1, ...tx };
    case 5: {
      const obj = objects[a % objects.length];
      const actions = ["read", "use", "open", "close", "open", "close", "dance", "start"];
      return {
        kind: "interact",
        entityId,
        targetId: obj ? obj.id : "obj_none",
        action: actions[b % actions.length]!,
        ...tx,
      };
    }
    case 6:
      return {
        kind: "chat",
        entityId,
        channel: b % 2 === 0 ? "proximity" : "global",
        message: a % 50 === 0 ? "" : `message ${a} from ${entityId}`,
        ...tx,
      };
    default:
      // Reflections (humans' are refused), citing events that may not have happened yet.
      if (c % 3 === 0) {
        return {
          kind: "reflect",
          entityId,
          content: `thought ${a} of ${entityId}`,
          topics: b % 2 === 0 ? ["plans"] : ["people", `t${b % 5}`],
          sources: a % 4 === 0 ? [] : [{ roomId: roomIds[a % roomIds.length]!, seq: (b % 20) + 1 }],
          importance: (a % 11) / 10,
          ...tx,
        };
      }
      return {
        kind: "chat",
        entityId,
        channel: "global",
        message: `guarded ${a}`,
        guards: [
          b % 2 === 0
            ? { kind: "tick_is", tick: c % 40 }
            : {
                kind: "object_state_is",
                objectId: objects[a % objects.length]?.id ?? "obj_none",
                field: "open",
                equals: true,
              },
        ],
      };
  }
}

/** A script from a seed: `ticks` ticks, each with 0..3 commands. */
export function seededScript(seed: number, ticks: number): Script {
  const rng = xoroshiro128plus(seed);
  const script: Script = [];
  for (let t = 0; t < ticks; t++) {
    const n = Math.max(0, uniformInt(rng, -3, 3));
    const tick: Command[] = [];
    for (let i = 0; i < n; i++) {
      tick.push([
        uniformInt(rng, 0, 999),
        uniformInt(rng, 0, 999),
        uniformInt(rng, 0, 999),
        uniformInt(rng, 0, 999),
        uniformInt(rng, 0, 999),
      ]);
    }
    script.push(tick);
  }
  return script;
}

export interface TraceRun {
  /** SHA-256 of every step's events and results, chained. */
  traceHash: string;
  /** Snapshot hash after every tick. */
  hashes: string[];
  world: World;
}

/** Runs a script on a world; `hashEvery` = 0 skips per-tick snapshot hashes. */
export function runScript(world: World, script: Script, hashEvery = 1): TraceRun {
  const def = world.definition;
  let trace = "";
  const hashes: string[] = [];
  for (const tick of script) {
    const r = world.step(tick.map((cmd) => commandToInput(def, cmd)));
    trace = sha256Hex(trace + canonicalHash({ events: r.events, results: r.results, tick: r.tick }));
    if (hashEvery > 0 && world.tick % hashEvery === 0) hashes.push(world.snapshotHash());
  }
  return { traceHash: trace, hashes, world };
}
