// The web wire's actor stream, two ways in one run over the same state stream: the bundled lobby
// stepped in process (no sockets: encoding only), HUMANS viewers and AGENTS other actors walking to
// random tiles, each viewer seeing every actor within 16 tiles (no visible entity limit), so the
// encoders are compared on large visible sets (bench/view-sync.bench.ts measures the capped rule). Per
// patch, the same visible sets are encoded by
//   ours      the product: binary frames assembled from records shared across viewers (PatchFragments)
//   colyseus  @colyseus/schema 5: State { players: map<Player>.view() }, one StateView per viewer that
//             holds exactly that viewer's visible players (view.add / view.remove), encode() once then
//             encodeView() per viewer; Player fields name string, kind uint8, look uint8, x int16,
//             y int16, tx uint16, ty uint16, facing uint8 (tighter than Colyseus' default number).
// Bytes: a viewer's message bytes for patches that carry something (+1 byte for colyseus, the
// ROOM_STATE_PATCH code a Colyseus room puts in front of every patch; ours carries its own tag and
// tick). Seconds are simulated (ticks / tickRate). Encode time is wall time of the encoding alone
// (the interest query is shared and not counted), per patch for all viewers.
// The JSON wire before ours (per-viewer diff + JSON.stringify) was also measured here until the binary wire; its
// figures are in docs/performance-history.md.
// Run: npx node bench/web-encode.bench.ts [humans=200] [agents=100] [seconds=15] [patchEveryTicks=1]
// The last output line is one JSON object with the figures.
import os from "node:os";
import { Decoder, Encoder, StateView, schema, t } from "@colyseus/schema";
import type { EntityView } from "../src/aic/reads.ts";
import { worldReads } from "../src/aic/reads.ts";
import { BUNDLED_WORLD_DIR } from "../src/config/config.ts";
import { PatchFragments, SentView } from "../src/http/humans/patch-fragments.ts";
import { DeltaDecoder, FACINGS } from "../src/http/humans/wire-delta.ts";
import { toWire } from "../src/http/humans/wire-entity.ts";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { World } from "../src/world/world.ts";

const HUMANS = Number(process.argv[2] ?? 200);
const AGENTS = Number(process.argv[3] ?? 100);
const SECONDS = Number(process.argv[4] ?? 15);
const PATCH_EVERY = Math.max(1, Number(process.argv[5] ?? 1));
const INTEREST_TILES = 16;
const VERIFIED_VIEWERS = 3; // decoded on the client side by both wires, to prove they carry the same state

const quiet = { info() {}, warn() {}, error() {} };
const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
const reads = worldReads(runtime);
const room = reads.definition.rooms.lobby!;
const tickRate = reads.definition.tickRate;

// A fixed pseudo-random sequence (xorshift), so every run walks the same way.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
};

const ids: string[] = [];
for (let i = 0; i < HUMANS + AGENTS; i++) {
  const human = i < HUMANS;
  const id = `${human ? "hum" : "agt"}_bench${String(i).padStart(5, "0")}`;
  void runtime.submit({
    kind: "join",
    entityId: id,
    actorKind: human ? "human" : "agent",
    name: `${human ? "Human" : "Agent"} ${i}`,
  });
  if (i % 50 === 49) runtime.stepNow();
  ids.push(id);
}
runtime.stepNow();
const present = ids.filter((id) => reads.getEntity(id));
const viewerIds = present.filter((id) => id.startsWith("hum_"));
const radius = INTEREST_TILES * room.tileSize;
const viewers = viewerIds.map((entityId) => ({
  entityId,
  ours: new SentView(),
  colyseusView: new StateView(),
  colyseusSees: new Set<string>(),
  bytes: { ours: 0, colyseus: 0 },
  frames: { ours: 0, colyseus: 0 },
}));

/** Every actor within the radius of the viewer, nearest first (the viewer itself included). */
function actorsNear(self: EntityView): EntityView[] {
  return reads
    .queryRadius(self.roomId, self.pos, radius)
    .filter((hit) => hit.entity.kind !== "object")
    .map((hit) => hit.entity);
}

// Colyseus: the same actors in a MapSchema filtered per viewer by StateView.
const Player = schema(
  {
    name: t.string(),
    kind: t.uint8(),
    look: t.uint8(),
    x: t.int16(),
    y: t.int16(),
    tx: t.uint16(),
    ty: t.uint16(),
    facing: t.uint8(),
  },
  "Player",
);
type PlayerT = InstanceType<typeof Player>;
const State = schema({ players: t.map(Player).view() }, "State");
const state = new State();
Encoder.BUFFER_SIZE = 1024 * 1024; // room for one view's first full patch without regrowing
const encoder = new Encoder(state);
const players = new Map<string, PlayerT>();
const checkDecoders = viewers.slice(0, VERIFIED_VIEWERS).map(() => {
  const s = new State();
  return { state: s, decoder: new Decoder(s) };
});
const ourDecoders = viewers.slice(0, VERIFIED_VIEWERS).map(() => new DeltaDecoder());

function colyseusSet(e: EntityView): PlayerT {
  let p = players.get(e.id);
  const w = toWire(e, 0);
  if (!p) {
    p = new Player();
    players.set(e.id, p);
    state.players.set(e.id, p);
  }
  const facing = FACINGS.indexOf(w.facing as (typeof FACINGS)[number]);
  const kind = w.kind === "agent" ? 1 : 0;
  // Only what changed is assigned, so the change tracker sees exactly the changes.
  if (p.name !== w.name) p.name = w.name;
  if (p.kind !== kind) p.kind = kind;
  if (p.x !== w.x) p.x = w.x;
  if (p.y !== w.y) p.y = w.y;
  if (p.tx !== w.tx) p.tx = w.tx;
  if (p.ty !== w.ty) p.ty = w.ty;
  if (p.facing !== facing) p.facing = facing;
  return p;
}

const fragments = new PatchFragments();
const time = { ours: 0, colyseus: 0 };
/** Per-patch times, for medians (a GC pause caused by one encoder's garbage may land in another's
 * timing; the median is less sensitive to that and to other processes on a busy machine). */
const perPatch = { ours: [] as number[], colyseus: [] as number[] };
const clock = (which: keyof typeof time, since: number) => {
  const ms = performance.now() - since;
  time[which] += ms;
  perPatch[which].push(ms);
};
let patches = 0;
let mismatches = 0;
const totalTicks = Math.round(SECONDS * tickRate);
const nextMoveAt = new Map(present.map((id, i) => [id, i % (2 * tickRate)]));

for (let tick = 0; tick < totalTicks; tick++) {
  for (const id of present) {
    if (tick < nextMoveAt.get(id)!) continue;
    nextMoveAt.set(id, tick + Math.round(tickRate * (1.5 + rand() * 2)));
    const dest = {
      tx: 2 + Math.floor(rand() * (room.widthTiles - 4)),
      ty: 2 + Math.floor(rand() * (room.heightTiles - 4)),
    };
    void runtime.submit({ kind: "moveTo", entityId: id, dest });
  }
  const step = runtime.stepNow()!;
  if (step.tick % PATCH_EVERY !== 0) continue;
  patches += 1;

  // The viewers' visible sets (shared input, not timed).
  const visible = viewers.map((v) => actorsNear(reads.getEntity(v.entityId)!));

  const oursFrames: (Uint8Array | undefined)[] = [];
  const colyseusFrames: (Uint8Array | undefined)[] = [];
  let t0 = performance.now();
  fragments.begin();
  visible.forEach((entities, i) => {
    const v = viewers[i]!;
    const wires = entities.map((e) => fragments.wire(e, toWire));
    const frame = fragments.frameFor(step.tick, v.ours, wires);
    if (!frame) return;
    v.bytes.ours += frame.length;
    v.frames.ours += 1;
    if (i < VERIFIED_VIEWERS) oursFrames[i] = frame;
  });
  fragments.end();
  if (patches % tickRate === 0) fragments.sweep((id) => reads.getEntity(id) !== undefined);
  clock("ours", t0);

  t0 = performance.now();
  const updated = new Set<string>();
  visible.forEach((entities, i) => {
    const v = viewers[i]!;
    const now = new Set<string>();
    for (const e of entities) {
      now.add(e.id);
      if (!updated.has(e.id)) {
        colyseusSet(e);
        updated.add(e.id);
      }
      if (!v.colyseusSees.has(e.id)) v.colyseusView.add(players.get(e.id)!);
    }
    for (const id of v.colyseusSees) if (!now.has(id)) v.colyseusView.remove(players.get(id)!);
    v.colyseusSees = now;
  });
  const it = { offset: 0 };
  encoder.encode(it);
  const sharedOffset = it.offset;
  viewers.forEach((v, i) => {
    // Each view's bytes come back as a copy, so the next view may write over them: the shared
    // buffer stays the size of one view (the README's form appends every view, and grows).
    it.offset = sharedOffset;
    const bytes = encoder.encodeView(v.colyseusView, sharedOffset, it);
    if (bytes.length === 0) return;
    v.bytes.colyseus += bytes.length + 1;
    v.frames.colyseus += 1;
    if (i < VERIFIED_VIEWERS) colyseusFrames[i] = bytes.slice();
  });
  encoder.discardChanges();
  clock("colyseus", t0);

  // Both clients hold exactly the viewer's visible set, field for field (decoded outside the timing).
  for (let i = 0; i < VERIFIED_VIEWERS && i < viewers.length; i++) {
    if (oursFrames[i]) ourDecoders[i]!.decode(oursFrames[i]!);
    if (colyseusFrames[i]) checkDecoders[i]!.decoder.decode(colyseusFrames[i]!);
    const want = visible[i]!.map((e) => toWire(e, 0));
    const ours = new Map(ourDecoders[i]!.entities().map((e) => [e.id, e]));
    const theirs = checkDecoders[i]!.state.players;
    for (const w of want) {
      const o = ours.get(w.id);
      const c = theirs.get(w.id);
      if (!o || o.x !== w.x || o.y !== w.y || o.facing !== w.facing || o.tx !== w.tx) mismatches += 1;
      if (!c || c.x !== w.x || c.y !== w.y || FACINGS[c.facing] !== w.facing || c.tx !== w.tx)
        mismatches += 1;
    }
    if (ours.size !== want.length || theirs.size !== want.length) mismatches += 1;
  }
}

const simSec = totalTicks / tickRate;
const mean = (pick: (v: (typeof viewers)[number]) => number) =>
  viewers.reduce((a, v) => a + pick(v), 0) / viewers.length / simSec;
const bytes = {
  ours: mean((v) => v.bytes.ours),
  colyseus: mean((v) => v.bytes.colyseus),
};
const msPerPatch = {
  ours: time.ours / patches,
  colyseus: time.colyseus / patches,
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p50 = { ours: median(perPatch.ours), colyseus: median(perPatch.colyseus) };
const meanVisible = viewers.reduce((a, v) => a + v.ours.size, 0) / viewers.length;
const r = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
console.log(
  `${viewers.length} viewers, ${present.length} actors, mean ${r(meanVisible)} visible per viewer, ${patches} patches over ${simSec} simulated s`,
);
console.log(
  `bytes/client/s  ours ${r(bytes.ours)}  colyseus ${r(bytes.colyseus)}  (ours/colyseus ${r(bytes.ours / bytes.colyseus, 3)})`,
);
console.log(
  `encode ms/patch mean (p50): ours ${r(msPerPatch.ours, 3)} (${r(p50.ours, 3)})  colyseus ${r(msPerPatch.colyseus, 3)} (${r(p50.colyseus, 3)})`,
);
console.log(
  JSON.stringify({
    bench: "web-encode",
    humans: HUMANS,
    agents: AGENTS,
    viewers: viewers.length,
    actors: present.length,
    meanVisiblePerViewer: r(meanVisible),
    patchEveryTicks: PATCH_EVERY,
    simulatedSec: simSec,
    patches,
    oursBytesPerClientPerSec: r(bytes.ours),
    colyseusBytesPerClientPerSec: r(bytes.colyseus),
    ratioOursToColyseus: r(bytes.ours / bytes.colyseus, 3),
    encodeMsPerPatch: {
      ours: r(msPerPatch.ours, 3),
      colyseus: r(msPerPatch.colyseus, 3),
    },
    encodeMsPerPatchP50: { ours: r(p50.ours, 3), colyseus: r(p50.colyseus, 3) },
    encodeUsPerViewerPerPatch: {
      ours: r((msPerPatch.ours * 1000) / viewers.length, 2),
      colyseus: r((msPerPatch.colyseus * 1000) / viewers.length, 2),
    },
    encodeRatioOursToColyseusP50: r(p50.ours / p50.colyseus, 2),
    verifiedViewers: Math.min(VERIFIED_VIEWERS, viewers.length),
    stateMismatches: mismatches,
    loadAvg1: r(os.loadavg()[0]!, 2),
  }),
);
