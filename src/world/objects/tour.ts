// A guided tour: a board beside a guide lists a few places of the world (its `stops`, region ids of
// any room); an actor who starts it walks into each, in any order, and the guide congratulates it
// once all are seen. Each actor's progress is the board's record of it (object-records.ts): kept
// while it is away or offline, in snapshots, the same in every replay. A person who comes near the
// board for the first time is told the tour exists, once, by the world alone (no model is asked).
//
// The board's own state is what everyone may see happen, with the actor named on each change (the
// replay and the follow page say it in words): `started` and `finished` count tours begun and done,
// `reached` is the last stop someone reached.
import type {
  ActorDealings,
  InteractOutcome,
  ObjectRecord,
  ObjectTypeHandler,
  RecordView,
} from "./object-type.ts";

export const TOUR_LIMITS = { minStops: 2, maxStops: 10, maxOfferTiles: 10 } as const;

export interface TourProgress {
  seen: string[];
  active: boolean;
  finishes: number;
}

/** The stops a board lists, in its order. */
export const stopsOf = (props: Readonly<Record<string, unknown>>): string[] =>
  String(props.stops ?? "")
    .split(/[\s,]+/)
    .filter(Boolean);

export const progressOf = (record: ObjectRecord | undefined): TourProgress => ({
  seen: String(record?.seen ?? "")
    .split(" ")
    .filter(Boolean),
  active: record?.active === 1,
  finishes: Number(record?.finishes ?? 0),
});

const recordOf = (p: TourProgress): ObjectRecord => ({
  seen: p.seen.join(" "),
  active: p.active ? 1 : 0,
  finishes: p.finishes,
});

type Names = (regionId: string) => string;
const the = (names: Names) => (id: string) => `the ${names(id)}`;

function list(words: string[]): string {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** Where an actor stands on the tour, in a line ("Tour: 3 of 5 - next: the Pond"). */
export function tourLine(stops: string[], p: TourProgress, names: Names): string {
  const seen = stops.filter((s) => p.seen.includes(s)).length;
  if (p.active) {
    const next = stops.find((s) => !p.seen.includes(s));
    return `Tour: ${seen} of ${stops.length} - next: ${next ? the(names)(next) : "nothing"}`;
  }
  if (p.finishes > 0) return `Tour: done, all ${stops.length} places seen`;
  return `Tour: not started - ${stops.length} places to see`;
}

function offerLine(stops: string[], names: Names): string {
  return `Welcome! I offer a short tour of ${stops.length} places: ${list(stops.map(the(names)))}. Start it at my tour board whenever you like.`;
}

function congratulation(name: string, stops: string[], names: Names): string {
  return `Well done, ${name}: you have seen all ${stops.length} places of the tour, ${list(stops.map(the(names)))}. Congratulations, and welcome to the world!`;
}

/** Marks the stops among `places` seen; finishes the tour when none is left. The reached stop and a
 * finish are the board's state changes; the actor is told where it stands. */
function reach(
  ctx: ActorDealings & {
    setState(field: string, value: string | number): void;
    state: Readonly<Record<string, unknown>>;
  },
  stops: string[],
  p: TourProgress,
  places: readonly string[],
): TourProgress {
  const names: Names = (id) => ctx.placeName(id) ?? id;
  const fresh = stops.filter((s) => places.includes(s) && !p.seen.includes(s));
  if (fresh.length === 0 || !p.active) return p;
  const next: TourProgress = { ...p, seen: [...p.seen, ...fresh] };
  ctx.setState("reached", names(fresh.at(-1)!));
  if (stops.every((s) => next.seen.includes(s))) {
    const done = { ...next, active: false, finishes: p.finishes + 1 };
    ctx.setRecord(recordOf(done));
    ctx.setState("finished", Number(ctx.state.finished) + 1);
    ctx.say(congratulation(ctx.actorName, stops, names));
    return done;
  }
  ctx.setRecord(recordOf(next));
  ctx.say(`${list(fresh.map(names))}: ${tourLine(stops, next, names).replace(/^Tour: /, "")}.`);
  return next;
}

export const tour: ObjectTypeHandler = {
  objectType: "tour",
  props: { stops: "string", guide: "string" },
  optionalProps: { offerTiles: "int" },
  about:
    "A guided tour: `stops` lists 2 to 10 region ids (any room) to see; `guide` is the name the tour speaks as. `start` begins it (again after finishing); walking into each stop, in any order, marks it seen; the guide congratulates whoever sees them all. `read` says where you stand. Each actor's progress is kept while it is away. `offerTiles`: a person coming this near for the first time is told of the tour (0, the default: never).",
  actions: ["read", "start"],
  validate(def, rooms) {
    const stops = stopsOf(def.props);
    if (stops.length < TOUR_LIMITS.minStops || stops.length > TOUR_LIMITS.maxStops)
      return {
        field: "stops",
        problem: `expected ${TOUR_LIMITS.minStops} to ${TOUR_LIMITS.maxStops} region ids`,
      };
    if (new Set(stops).size !== stops.length) return { field: "stops", problem: "a stop is listed twice" };
    const regions = new Set(Object.values(rooms).flatMap((r) => r.regions.map((g) => g.id)));
    const unknown = stops.find((s) => !regions.has(s));
    if (unknown) return { field: "stops", problem: `region "${unknown}" does not exist` };
    const guide = String(def.props.guide);
    if (guide.trim() === "" || guide.length > 64)
      return { field: "guide", problem: "expected a name (1..64 chars)" };
    const offer = def.props.offerTiles;
    if (offer !== undefined && (typeof offer !== "number" || offer < 0 || offer > TOUR_LIMITS.maxOfferTiles))
      return { field: "offerTiles", problem: `expected whole tiles from 0 to ${TOUR_LIMITS.maxOfferTiles}` };
    return undefined;
  },
  initialState: () => ({ started: 0, finished: 0, reached: "" }),
  affordances: () => [
    { action: "read", label: "Ask about the tour" },
    { action: "start", label: "Start the tour" },
  ],
  speaker: (def) => String(def.props.guide),
  interact(ctx, action): InteractOutcome {
    const stops = stopsOf(ctx.def.props);
    const names: Names = (id) => ctx.placeName(id) ?? id;
    const p = progressOf(ctx.record());
    if (action === "read") {
      const what = `${list(stops.map(the(names)))}, in any order`;
      return { type: "ok", message: `${tourLine(stops, p, names)}. The tour: ${what}.` };
    }
    if (p.active)
      return { type: "no_effect", message: `Your tour is under way. ${tourLine(stops, p, names)}.` };
    const begun: TourProgress = { seen: [], active: true, finishes: p.finishes };
    ctx.setRecord(recordOf(begun));
    ctx.setState("started", Number(ctx.state.started) + 1);
    const now = reach(ctx, stops, begun, ctx.placesHere());
    const again = p.finishes > 0 ? "once more " : "";
    return {
      type: "ok",
      message: `You start the tour ${again}of ${list(stops.map(the(names)))}: walk into each, in any order. ${tourLine(stops, now, names)}.`,
    };
  },
  visit(ctx, entered) {
    const record = ctx.record();
    if (!record) {
      const offer = Number(ctx.def.props.offerTiles ?? 0);
      if (offer > 0 && ctx.distanceTiles <= offer && ctx.actorId.startsWith("hum_")) {
        ctx.setRecord(recordOf({ seen: [], active: false, finishes: 0 }));
        ctx.say(offerLine(stopsOf(ctx.def.props), (id) => ctx.placeName(id) ?? id));
      }
      return;
    }
    if (entered.length > 0 && record.active === 1)
      reach(ctx, stopsOf(ctx.def.props), progressOf(record), entered);
  },
  checkState(state) {
    if (Object.keys(state).sort().join(",") !== "finished,reached,started")
      return "the state fields are finished, reached, started";
    for (const field of ["started", "finished"] as const) {
      const v = state[field];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0) return `${field} must be a count`;
    }
    return typeof state.reached === "string" && state.reached.length <= 64
      ? undefined
      : "reached must be a place's name";
  },
  checkRecord(record, def) {
    if (Object.keys(record).sort().join(",") !== "active,finishes,seen")
      return "the record fields are active, finishes, seen";
    if (record.active !== 0 && record.active !== 1) return "active must be 0 or 1";
    const f = record.finishes;
    if (typeof f !== "number" || !Number.isInteger(f) || f < 0) return "finishes must be a count";
    const stops = stopsOf(def.props);
    const seen = progressOf(record).seen;
    if (
      typeof record.seen !== "string" ||
      seen.some((s) => !stops.includes(s)) ||
      new Set(seen).size !== seen.length
    )
      return "seen must list stops of this tour, each once";
    return undefined;
  },
  recordView(record, def, placeName): RecordView {
    const p = progressOf(record);
    return { text: tourLine(stopsOf(def.props), p, placeName), active: p.active, done: p.finishes > 0 };
  },
};
