// The bundled world's residents: the guide by the welcome sign in the lobby's plaza, a café keeper, a
// librarian and a council clerk in the town, a gardener in the garden. `npm start` always puts them in
// the world (plugin config `residents`): with a model (gateway config) they greet whoever comes near,
// answer and walk along with a person (their tool policy allows ocw_chat_send, ocw_move_to and ocw_lead:
// the world keeps them beside the one they walk with, waiting at portals), and now
// and then talk to each other (residentBudget.talkTurnsPerHour); without one they stand at home asleep
// and tell whoever comes near how to wake them. Homes stand beside signs and objects, never on them.
// Routines are by simulation time (src/residents/routine.ts): the same in every run. Day plans follow
// the town's hours (the café 07:00-19:00, the library 08:00-20:00: worlds/lobby/maps/town.json), so
// homes stand outside those places and every resident is home for the night (21:00-07:00).

interface BundledResident {
  name: string;
  look: number;
  home: { roomId: string; tx: number; ty: number };
  persona: string;
  routine?: { everySec: number; stops: { tx: number; ty: number; from?: string; to?: string }[] };
  /** Object types it looks after between turns (config `tends`). */
  tends?: string[];
}

/** Each resident by agent id (a gateway agent of its own). */
export const BUNDLED_RESIDENTS: Record<string, BundledResident> = {
  guide: {
    name: "Guide",
    look: 5,
    // Beside the welcome sign (21,12), so its name and bubble leave the sign readable.
    home: { roomId: "lobby", tx: 19, ty: 12 },
    persona:
      "You welcome newcomers to the plaza. The Town (café, library, council) is west through the portal at 1,16; the Garden east through the portal at 46,16.",
  },
  cafe: {
    name: "Mara",
    look: 2,
    // Her doorstep on the lane: the café is closed at night.
    home: { roomId: "town", tx: 12, ty: 15 },
    persona:
      "You keep the town's café: coffee, the day's bake, the town's news. You play four-in-a-row at the café's table with anyone who asks (join, then play on your move). You step out to the lane and the square now and then.",
    // On the square (every third stretch) she meets Amos at the notice board when his routine has
    // him there too: the bundled residents talk to each other now and then.
    routine: {
      everySec: 600,
      stops: [
        { tx: 11, ty: 5, from: "07:00", to: "19:00" },
        { tx: 13, ty: 8, from: "07:00", to: "19:00" },
        { tx: 9, ty: 14, from: "07:00", to: "21:00" },
        { tx: 21, ty: 17, from: "07:00", to: "21:00" },
      ],
    },
  },
  librarian: {
    name: "Odile",
    look: 6,
    // By the library lane: the library is closed at night.
    home: { roomId: "town", tx: 44, ty: 14 },
    persona:
      "You are the town's librarian: you know every shelf and recommend a book to anyone who asks. You speak softly and briefly.",
    routine: {
      everySec: 1200,
      stops: [
        { tx: 47, ty: 6, from: "08:00", to: "20:00" },
        { tx: 43, ty: 10, from: "08:00", to: "20:00" },
      ],
    },
  },
  clerk: {
    name: "Amos",
    look: 3,
    home: { roomId: "town", tx: 43, ty: 24 },
    persona:
      "You are the council clerk: you keep the council room's calendar and the notice board on the square, and explain how to book the private room.",
    routine: { everySec: 1800, stops: [{ tx: 24, ty: 17, from: "07:00", to: "21:00" }] },
  },
  gardener: {
    name: "Fern",
    look: 1,
    home: { roomId: "garden", tx: 10, ty: 22 },
    persona:
      "You tend the garden: the flower bed and its plots (you water them when they need it and help people plant), the pond and the gazebo. You like to show people round and name the flowers.",
    // She waters a thirsty plant on her own (no turn, no model asked), wherever her routine has her.
    tends: ["garden_plot"],
    routine: {
      everySec: 600,
      stops: [
        { tx: 20, ty: 12, from: "06:00", to: "21:00" },
        { tx: 38, ty: 24, from: "06:00", to: "21:00" },
      ],
    },
  },
};

const greeter = { nearby: true, name: true, approach: true, residents: true };

/** Tools a resident has beyond talking and walking: the gardener uses the plots (water, plant), the
 * café keeper the game table. */
const MORE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  gardener: ["ocw_interact"],
  cafe: ["ocw_interact"],
};

/** The plugin config for the bundled residents (always), and their tool policy. */
export function bundledResidentsConfig() {
  return {
    residents: Object.fromEntries(
      Object.entries(BUNDLED_RESIDENTS).map(([agentId, r]) => [agentId, { ...r, wake: greeter }]),
    ),
    tools: {
      perAgent: Object.fromEntries(
        Object.keys(BUNDLED_RESIDENTS).map((agentId) => [
          agentId,
          { enabled: ["ocw_chat_send", "ocw_move_to", "ocw_lead", ...(MORE_TOOLS[agentId] ?? [])] },
        ]),
      ),
    },
  };
}

/** The gateway config that gives each resident an agent of its own (with a model only). `main`
 * stays: an entries list without it would leave the gateway without its default agent. */
export function residentsGatewayConfig(agentIds: readonly string[] = Object.keys(BUNDLED_RESIDENTS)) {
  return { agents: { entries: { main: {}, ...Object.fromEntries(agentIds.map((id) => [id, {}])) } } };
}
