// A creature: a living thing of the world that no model drives (the cat). It is an object at every
// door (the contract's entity kinds are human, agent and object) whose tile moves: its position and
// what it is doing are its state, changed each tick by its species' rule (`roam`) without events,
// so snapshots and replays hold it exactly and no agent's event feed fills with its steps.

import { habitable, homeOf, nearestTile } from "../habitat.ts";
import type { ObjectDefinition, RoomDefinition } from "../types.ts";
import { BIRD_MODES, birdDoing, roamBird } from "./bird.ts";
import { CAT_MODES, catDoing, roamCat } from "./cat.ts";
import { FISH_MODES, fishDoing, roamFish } from "./fish.ts";
import type { ObjectState, ObjectTypeHandler, RoamContext } from "./object-type.ts";
import { type Roamer, roamerOf, roamerState, startingAt } from "./roamer.ts";

interface Species {
  /** The modes its state may be in (a snapshot is checked against them). */
  modes: readonly string[];
  /** It lives in water (the map's water tiles), not on open ground. */
  swims: boolean;
  /** "a cat", or "Mochi the cat" when it has a name. */
  called(name: string | undefined): string;
  initialState(def: ObjectDefinition): ObjectState;
  roam(ctx: RoamContext): void;
  doing(state: Readonly<ObjectState>): string;
}

const ACTOR_ID = /^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/;

function species<Mode extends string>(
  kind: string,
  modes: readonly Mode[],
  facing: string,
  roam: (ctx: RoamContext) => void,
  doing: (r: Roamer<Mode>) => string,
  swims = false,
): Species {
  return {
    modes,
    swims,
    called: (name) => (name ? `${name} the ${kind}` : `a ${kind}`),
    initialState: (def) => {
      const start = startingAt(def, facing, modes[0]!);
      return roamerState(start, doing(start));
    },
    roam,
    doing: (state) => doing(roamerOf(state, modes)),
  };
}

const SPECIES: Readonly<Record<string, Species>> = {
  cat: species("cat", CAT_MODES, "down", roamCat, catDoing),
  bird: species("bird", BIRD_MODES, "right", roamBird, birdDoing),
  fish: species("fish", FISH_MODES, "right", roamFish, fishDoing, true),
};

const speciesOf = (state: Readonly<ObjectState>): Species | undefined =>
  Object.hasOwn(SPECIES, String(state.species)) ? SPECIES[String(state.species)] : undefined;

/** The object type of every creature (the page and the view sync look for it). */
export const CREATURE_TYPE = "creature";

export const creature: ObjectTypeHandler = {
  objectType: CREATURE_TYPE,
  props: { species: "string" },
  optionalProps: { called: "string", region: "string" },
  about:
    'Moves by its `species`\' rule: `cat` wanders, naps, follows someone near a while; `bird` hops, flies off when someone comes near; `fish` swims only on water (ground tiles the tileset marks `water`), starts on one, and gathers by someone standing near. `called` its name ("Mochi": "Mochi the cat"); `region` a region it never leaves (else its room). Never blocks anyone nor enters a closed or private place; `read` says what it does.',
  actions: ["read"],
  validate(def, rooms) {
    if (!Object.hasOwn(SPECIES, String(def.props.species)))
      return { field: "species", problem: `expected one of ${Object.keys(SPECIES).join(", ")}` };
    const called = def.props.called;
    if (called !== undefined && (typeof called !== "string" || !/^\S.{0,39}$/u.test(called)))
      return { field: "called", problem: "expected a name of 1 to 40 characters" };
    const region = def.props.region;
    if (region !== undefined && !rooms[def.roomId]?.regions.some((r) => r.id === region))
      return { field: "region", problem: `room "${def.roomId}" has no region "${region}"` };
    const room = rooms[def.roomId];
    const { tx, ty } = def.tile;
    if (SPECIES[String(def.props.species)]!.swims && room && room.water[ty * room.widthTiles + tx] !== 1)
      return {
        field: "species",
        problem: `a fish starts on water: tile (${tx}, ${ty}) is not a ground tile the tileset marks water`,
      };
    return undefined;
  },
  initialState(def) {
    const species = SPECIES[String(def.props.species)]!;
    const called = typeof def.props.called === "string" ? def.props.called : undefined;
    return {
      species: String(def.props.species),
      called: species.called(called),
      ...species.initialState(def),
    };
  },
  // The label names it and says what it does: the page's hover shows it, a look says it again.
  affordances: (state) => [{ action: "read", label: inWords(state) }],
  interact: (ctx) => ({ type: "ok", message: `${inWords(ctx.state)}.` }),
  roam(ctx) {
    speciesOf(ctx.state)?.roam(ctx);
  },
  tileOf: (state) => ({ tx: Number(state.tx), ty: Number(state.ty) }),
  refit: (state, def, room) => refit(state, def, room),
  checkState(state) {
    const keys = "called,doing,facing,mode,next,species,tx,ty,until,with,withName";
    if (Object.keys(state).sort().join(",") !== keys) return `the state fields are ${keys}`;
    if (!speciesOf(state)) return `species must be one of ${Object.keys(SPECIES).join(", ")}`;
    for (const field of ["tx", "ty", "until", "next"] as const) {
      const v = state[field];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0) return `${field} must be a whole number`;
    }
    const { modes } = speciesOf(state)!;
    if (!modes.includes(String(state.mode))) return `mode must be one of ${modes.join(", ")}`;
    if (!["up", "down", "left", "right"].includes(String(state.facing))) return "facing must be a direction";
    if (state.with !== "" && !ACTOR_ID.test(String(state.with))) return "with must be empty or an actor id";
    for (const field of ["called", "doing", "withName"] as const)
      if (typeof state[field] !== "string") return `${field} must be text`;
    return undefined;
  },
};

/** Its state on a new map: where it was if the map still holds it there, else on the nearest tile of
 * its habitat (habitat.ts), else nowhere (it starts afresh on its definition's tile). */
function refit(
  state: Readonly<ObjectState>,
  def: ObjectDefinition,
  room: RoomDefinition,
): ObjectState | undefined {
  const species = speciesOf(state);
  const home = homeOf(room, def);
  if (!species || !home) return undefined;
  const at = { tx: Number(state.tx), ty: Number(state.ty) };
  const spot = nearestTile(room, at, habitable(room, home, species.swims));
  if (!spot) return undefined;
  return spot.tx === at.tx && spot.ty === at.ty ? { ...state } : { ...state, ...spot };
}

/** "Mochi the cat, napping". */
export function inWords(state: Readonly<ObjectState>): string {
  const called = String(state.called);
  const doing = speciesOf(state)?.doing(state) ?? String(state.doing);
  return `${called.charAt(0).toUpperCase()}${called.slice(1)}, ${doing}`;
}
