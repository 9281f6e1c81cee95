// A garden plot: someone plants it, anyone waters it, and it grows with simulation time alone
// (`elapse`, called by the world each tick), so a plant left alone keeps growing for everyone who
// comes by, in every replay alike. The whole plant is the plot's state (durable, in snapshots).
//
// The rules, for people and agents alike:
// - `plant` an empty plot: a seedling, watered, with your name on it.
// - It grows through `seedling` (the first third of `growSeconds`), `growing`, then `flowering`.
// - Unwatered for `thirstSeconds` it wilts: growth stops where it was. `water` revives it (and
//   growth goes on from there); watering a healthy plant resets its thirst.
// - `clear` empties the plot: its planter may at any time, anyone once it flowers (picking) or wilts.
// - `read` says what is in it and what it needs.
// - One who tends plots (a gardener resident) waters a plant once half its thirst has passed, or
//   a wilted one (`care`).
// Growth is banked when it stops (`grownMs`) and counted from `growingSinceMs` while it goes on, so
// the state changes only when something happens: a stage reached, a wilt, a watering.
import type { InteractContext, InteractOutcome, ObjectState, ObjectTypeHandler } from "./object-type.ts";

export const STAGES = ["empty", "seedling", "growing", "flowering"] as const;
export type Stage = (typeof STAGES)[number];

export const PLOT_DEFAULTS = { growSeconds: 3600, thirstSeconds: 1200 } as const;
const ACTOR_ID = /^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/;

export interface Plot {
  growSeconds: number;
  thirstSeconds: number;
  stage: Stage;
  wilted: boolean;
  planter: string;
  planterName: string;
  grownMs: number;
  growingSinceMs: number;
  wateredMs: number;
}

export const plotOf = (s: Readonly<ObjectState>): Plot => ({
  growSeconds: Number(s.growSeconds),
  thirstSeconds: Number(s.thirstSeconds),
  stage: (STAGES as readonly string[]).includes(String(s.stage)) ? (s.stage as Stage) : "empty",
  wilted: s.wilted === true,
  planter: String(s.planter),
  planterName: String(s.planterName),
  grownMs: Number(s.grownMs),
  growingSinceMs: Number(s.growingSinceMs),
  wateredMs: Number(s.wateredMs),
});

const EMPTY_PLOT = {
  stage: "empty",
  wilted: false,
  planter: "",
  planterName: "",
  grownMs: 0,
  growingSinceMs: 0,
  wateredMs: 0,
} as const;

/** How long the plant has grown by `nowMs` (ms): banked growth, plus the stretch since it last
 * started growing unless it is wilted. */
export function grownBy(p: Plot, nowMs: number): number {
  return p.wilted ? p.grownMs : p.grownMs + Math.max(0, nowMs - p.growingSinceMs);
}

/** The stage a plant that has grown `grownMs` is at. */
export function stageAfter(grownMs: number, growSeconds: number): Stage {
  const spanMs = growSeconds * 1000;
  if (grownMs >= spanMs) return "flowering";
  // The seedling's third of the span, in integers: ms * 3 against the span, no rounding.
  return grownMs * 3 >= spanMs ? "growing" : "seedling";
}

/** When an unwatered plant wilts (sim ms). */
const wiltsAt = (p: Plot) => p.wateredMs + p.thirstSeconds * 1000;

const minutes = (ms: number) => Math.max(1, Math.ceil(ms / 60_000));

/** What grows, in words, by stage. */
const PLANT: Record<Exclude<Stage, "empty">, string> = {
  seedling: "seedling",
  growing: "growing plant",
  flowering: "flowering plant",
};

/** The plot in a sentence: what is in it, whose, and what it needs now. */
export function describePlot(p: Plot, nowMs: number): string {
  if (p.stage === "empty") return "An empty plot. Plant something!";
  const by = `planted by ${p.planterName}`;
  if (p.wilted) return `A wilted ${PLANT[p.stage]}, ${by}. It needs water.`;
  const thirsty = wiltsAt(p) - nowMs;
  const needs = `needs water within ${minutes(thirsty)} min`;
  if (p.stage === "flowering") return `In flower, ${by}; ${needs}. Anyone may pick it.`;
  const nextMs = p.stage === "seedling" ? Math.ceil((p.growSeconds * 1000) / 3) : p.growSeconds * 1000;
  const next = p.stage === "seedling" ? "growing" : "flowering";
  return `A ${PLANT[p.stage]}, ${by}; ${next} in about ${minutes(nextMs - grownBy(p, nowMs))} min; ${needs}.`;
}

function set(
  ctx: { state: Readonly<ObjectState>; setState: InteractContext["setState"] },
  fields: Partial<Plot>,
) {
  for (const [k, v] of Object.entries(fields)) if (ctx.state[k] !== v) ctx.setState(k, v);
}

function plant(ctx: InteractContext, p: Plot): InteractOutcome {
  if (p.stage !== "empty")
    return { type: "no_effect", message: `Something grows here already (${describePlot(p, ctx.nowMs)})` };
  const next: Plot = {
    ...p,
    stage: "seedling",
    wilted: false,
    planter: ctx.actorId,
    planterName: ctx.actorName,
    grownMs: 0,
    growingSinceMs: ctx.nowMs,
    wateredMs: ctx.nowMs,
  };
  set(ctx, next);
  return { type: "ok", message: `You plant and water a seed. ${describePlot(next, ctx.nowMs)}` };
}

function water(ctx: InteractContext, p: Plot): InteractOutcome {
  if (p.stage === "empty") return { type: "no_effect", message: "Nothing is planted here: plant first." };
  const next: Plot = p.wilted
    ? { ...p, wilted: false, growingSinceMs: ctx.nowMs, wateredMs: ctx.nowMs }
    : { ...p, wateredMs: ctx.nowMs };
  set(ctx, next);
  const revived = p.wilted ? "It perks up. " : "";
  return { type: "ok", message: `You water the plot. ${revived}${describePlot(next, ctx.nowMs)}` };
}

function clear(ctx: InteractContext, p: Plot): InteractOutcome {
  if (p.stage === "empty") return { type: "no_effect", message: "The plot is empty already." };
  const picking = p.stage === "flowering" && !p.wilted;
  if (p.planter !== ctx.actorId && !picking && !p.wilted)
    return {
      type: "no_effect",
      message: `${p.planterName} planted this; anyone may clear it once it flowers or wilts.`,
    };
  set(ctx, EMPTY_PLOT);
  return {
    type: "ok",
    message: picking ? "You pick the flowers; the plot is empty." : "You clear the plot.",
  };
}

export const gardenPlot: ObjectTypeHandler = {
  objectType: "garden_plot",
  props: {},
  optionalProps: { growSeconds: "int", thirstSeconds: "int" },
  about:
    "A plot of soil: `plant` it, `water` it, `clear` it, `read` it. A plant grows with simulation time: seedling, growing (after a third of `growSeconds`, default 3600), flowering (after `growSeconds`); unwatered for `thirstSeconds` (default 1200) it wilts and stops growing until watered. Its planter may clear it, anyone once it flowers or wilts.",
  actions: ["read", "plant", "water", "clear"],
  validate(def) {
    for (const field of ["growSeconds", "thirstSeconds"] as const) {
      const value = def.props[field];
      if (value !== undefined && (typeof value !== "number" || value < 3 || value > 30 * 86_400))
        return { field, problem: "expected whole seconds from 3 to 2592000 (30 days)" };
    }
    return undefined;
  },
  initialState: (def) => ({
    growSeconds: Number(def.props.growSeconds ?? PLOT_DEFAULTS.growSeconds),
    thirstSeconds: Number(def.props.thirstSeconds ?? PLOT_DEFAULTS.thirstSeconds),
    ...EMPTY_PLOT,
  }),
  affordances(state) {
    const p = plotOf(state);
    if (p.stage === "empty")
      return [
        { action: "read", label: "Look at the plot" },
        { action: "plant", label: "Plant a seed" },
      ];
    return [
      { action: "read", label: "Look at the plant" },
      { action: "water", label: p.wilted ? "Water it (it is wilting)" : "Water it" },
      {
        action: "clear",
        label: p.stage === "flowering" && !p.wilted ? "Pick the flowers" : "Clear the plot",
      },
    ];
  },
  interact(ctx, action) {
    const p = plotOf(ctx.state);
    if (action === "read") return { type: "ok", message: describePlot(p, ctx.nowMs) };
    if (action === "plant") return plant(ctx, p);
    if (action === "water") return water(ctx, p);
    return clear(ctx, p);
  },
  care(state, nowMs) {
    const p = plotOf(state);
    if (p.stage === "empty") return undefined;
    // Integers: twice the time since watering against the thirst, no halving.
    return p.wilted || (nowMs - p.wateredMs) * 2 >= p.thirstSeconds * 1000 ? "water" : undefined;
  },
  elapse(ctx) {
    const p = plotOf(ctx.state);
    if (p.stage === "empty") return;
    let next = p;
    if (!p.wilted && ctx.nowMs >= wiltsAt(p))
      next = { ...p, wilted: true, grownMs: p.grownMs + Math.max(0, wiltsAt(p) - p.growingSinceMs) };
    const stage = stageAfter(grownBy(next, ctx.nowMs), p.growSeconds);
    if (stage !== p.stage) next = { ...next, stage };
    if (next !== p) set(ctx, next);
  },
  checkState(state) {
    const keys =
      "growSeconds,growingSinceMs,grownMs,planter,planterName,stage,thirstSeconds,wateredMs,wilted";
    if (Object.keys(state).sort().join(",") !== keys) return `the state fields are ${keys}`;
    for (const field of ["growSeconds", "thirstSeconds"] as const) {
      const v = state[field];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 3) return `${field} must be whole seconds`;
    }
    for (const field of ["grownMs", "growingSinceMs", "wateredMs"] as const) {
      const v = state[field];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0) return `${field} must be whole ms`;
    }
    if (!(STAGES as readonly unknown[]).includes(state.stage))
      return `stage must be one of ${STAGES.join(", ")}`;
    if (typeof state.wilted !== "boolean") return "wilted must be true or false";
    const { planter, planterName } = state;
    if (typeof planter !== "string" || (planter !== "" && !ACTOR_ID.test(planter)))
      return "planter must be empty or an actor id";
    if (
      typeof planterName !== "string" ||
      planterName.length > 64 ||
      (planter === "") !== (planterName === "")
    )
      return "planterName must name the planter (empty when nothing is planted)";
    if ((state.stage === "empty") !== (planter === ""))
      return "a planted plot has a planter, an empty one none";
    return undefined;
  },
};
