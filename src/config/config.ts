// Plugin config: one strict zod schema. The manifest's configSchema (openclaw.plugin.json) is
// generated from it (`npm run gen:schemas`; a test fails when it is stale), so the gateway validates
// and fills defaults by the same rules; resolveConfig() parses once into ResolvedConfig for callers
// that bypass the gateway (unit tests, scripts) and adds what JSON Schema cannot say: tool names
// canonicalised and known, required tools never enabled/disabled, agent tokens distinct.
import { createHash } from "node:crypto";
import * as z from "zod";
import { BUNDLED_WORLD_DIR } from "../runtime/load-world-dir.ts";
import { toolNameOf } from "../world/actions/action.ts";
import { DOOR_ACTIONS } from "../world/actions/registry.ts";
import { canonicalJson } from "../world/canonical-json.ts";
import { AGENT_ID_PATTERN, nameProblem, ROOM_ID_PATTERN } from "../world/ids.ts";
import { objectTypes } from "../world/objects/object-registry.ts";

export { BUNDLED_WORLD_DIR };

export const REQUIRED_TOOLS = [
  "ocw_status",
  "ocw_observe",
  "ocw_poll_events",
  "ocw_chat_observe",
  "ocw_heartbeat",
] as const;
/** The opt-in tools: those written in src/tools, then one per action kind with doors (ocw_<kind>). */
export const OPTIONAL_TOOLS = [
  "ocw_move_to",
  "ocw_interact",
  "ocw_chat_send",
  "ocw_reflect",
  ...DOOR_ACTIONS.map(({ kind }) => toolNameOf(kind)),
] as const;
export const ALL_TOOLS = [...REQUIRED_TOOLS, ...OPTIONAL_TOOLS] as const;
export type ToolName = (typeof ALL_TOOLS)[number];
export type OptionalToolName = (typeof OPTIONAL_TOOLS)[number];

export class ConfigError extends Error {}

/** `ocw.move_to` and `ocw_move_to` name the same tool; providers reject dots, so underscores win. */
export function canonicalToolName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^ocw\./, "ocw_");
}

const toolNameList = () => z.array(z.string().regex(/^ocw[._][a-z_]+$/));

const ToolLists = {
  enabled: toolNameList().default([]),
  denied: toolNameList().default([]),
};

/** How many avatar looks the web client draws (its LOOKS; a resident's `look` indexes them). */
const AVATAR_LOOK_COUNT = 8;
/** A clock of the world's day (HH:MM, UTC). */
const Clock = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/);

/** The object types a resident may tend: those that say what they need (ObjectTypeHandler.care). */
const TENDED_TYPES = [...objectTypes.values()].filter((h) => h.care).map((h) => h.objectType) as [
  string,
  ...string[],
];

/** A gateway agent that lives in the world: it stands at home and the world wakes it (a turn of the
 * gateway's own agent loop, src/residents) when someone speaks near it or says its name. */
const ResidentSchema = z.strictObject({
  name: z.string().min(1).max(64).describe("Its name in the world (also what wakes it when said)"),
  look: z
    .int()
    .min(0)
    .max(AVATAR_LOOK_COUNT - 1)
    .optional()
    .describe("Avatar look (0-7) in the web client; without it, the AI agent figure"),
  home: z
    .strictObject({
      roomId: z.string().regex(ROOM_ID_PATTERN).optional().describe("Its room (default: defaultRoomId)"),
      tx: z.int().min(0).max(4095),
      ty: z.int().min(0).max(4095),
    })
    .describe("Where it stands when the world starts (a walkable tile)"),
  wake: z
    .strictObject({
      nearby: z.boolean().default(true).describe("Someone speaks within its hearing"),
      name: z.boolean().default(true).describe("Someone in its room says its name, from anywhere"),
      approach: z.boolean().default(false).describe("A person comes near it"),
      residents: z
        .boolean()
        .default(false)
        .describe(
          "Another resident comes near or speaks near it (now and then, within residentBudget.talkTurnsPerHour)",
        ),
    })
    .prefault({}),
  persona: z
    .string()
    .max(400)
    .optional()
    .describe("Who it is and what it knows, told at every turn (the first 240 characters)"),
  routine: z
    .strictObject({
      everySec: z
        .int()
        .min(10)
        .max(86_400)
        .default(600)
        .describe("Simulation seconds at each stop before it walks to the next"),
      stops: z
        .array(
          z
            .strictObject({
              tx: z.int().min(0).max(4095),
              ty: z.int().min(0).max(4095),
              from: Clock.optional().describe(
                "Due from this clock (HH:MM, the world's UTC clock); default 00:00",
              ),
              to: Clock.optional().describe(
                "Due until this clock (HH:MM, not included); default the day's end",
              ),
            })
            .refine((s) => s.from === undefined || s.from !== s.to, {
              message: "from and to are the same clock",
              path: ["to"],
            }),
        )
        .min(1)
        .max(8)
        .describe(
          "Where it wanders in its home room, after home; then home again. A stop with from/to is due only then (a day plan: home at night); one in a place closed now is skipped",
        ),
    })
    .optional()
    .describe(
      "Where it stands when: home, then each stop in turn, by simulation time (the same in every run); it waits while someone is near it or a turn runs",
    ),
  tends: z
    .array(z.enum(TENDED_TYPES))
    .max(8)
    .optional()
    .describe(
      'Object types it looks after in its home room ("garden_plot"): between turns, when one needs it (a thirsty plant), it walks there and does what it needs (waters it), as anyone could, then goes back to its stop',
    ),
  returnHomeAfterSec: z
    .int()
    .min(1)
    .max(86_400)
    .default(60)
    .describe(
      "Simulation seconds it stays where a turn took it (a place it walked someone to, in any room) once alone and standing, before it walks back to home or its routine's stop, through portals",
    ),
  minIntervalSec: z.number().min(0).max(3600).default(3).describe("Least time between two turns"),
  maxTurnsPerHour: z.int().min(1).max(3600).default(60),
  turnTimeoutSec: z.int().min(5).max(900).default(120).describe("A turn running longer is cancelled"),
  prepareTurns: z
    .boolean()
    .default(true)
    .describe(
      "Ready the gateway's agent loop for its turns when the world starts, so its first answer costs what a later one does (no model is asked)",
    ),
  maxModelRequestsPerTurn: z
    .int()
    .min(1)
    .max(100)
    .default(8)
    .describe("A turn asking its model more often is cancelled (a model calling tools in a loop)"),
  maxTurnsPerPersonPerHour: z
    .int()
    .min(1)
    .max(3600)
    .default(20)
    .describe("What one person may wake it for in an hour; beyond it their words wake it no more"),
  sessionTurns: z
    .int()
    .min(1)
    .max(1000)
    .default(4)
    .describe(
      "Turns one conversation session holds; the next turn starts a fresh one (bounds each model request; what matters is kept in its world memory)",
    ),
});

/** Above every resident: the turns all of them together may take in an hour. */
const ResidentBudgetSchema = z.strictObject({
  maxTurnsPerHour: z
    .int()
    .min(1)
    .max(100_000)
    .default(240)
    .describe("Turns all residents together may take in an hour; a turn beyond it waits"),
  talkTurnsPerHour: z
    .int()
    .min(0)
    .max(10_000)
    .default(6)
    .describe(
      "Turns residents may take talking to each other in an hour, all together (part of maxTurnsPerHour); 0: they never do. They come back gradually: an exchange (two turns) per 2/talkTurnsPerHour of the hour",
    ),
  talkPairIntervalSec: z
    .int()
    .min(0)
    .max(86_400)
    .default(1200)
    .describe(
      "Least time between two exchanges of the same two residents, so one pair does not take all the talk",
    ),
});

/** Where the world wakes an AIC agent that lives outside this gateway (src/residents/remote,
 * docs/wake-targets.md): a webhook that gets a signed POST, or another OpenClaw gateway's
 * `POST /hooks/wake`. The wake rules and pacing are a resident's; the turn's time limit is how long
 * the thinking mark waits for its reply. */
const WakeEndpointSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("webhook"),
    url: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/)
      .max(2048),
    secret: z.string().min(32).max(512).describe("Signs each wake (HMAC-SHA256); the receiver checks it"),
  }),
  z.strictObject({
    kind: z.literal("openclaw"),
    url: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/)
      .max(2048)
      .describe("The gateway's wake hook, e.g. https://friend.example/hooks/wake"),
    hookToken: z.string().min(16).max(512).describe("Its hooks.token (not its gateway token)"),
    agentId: z.string().regex(AGENT_ID_PATTERN).describe("The agent on that gateway"),
  }),
]);

export const WakeTargetSchema = ResidentSchema.pick({
  wake: true,
  minIntervalSec: true,
  maxTurnsPerHour: true,
  maxTurnsPerPersonPerHour: true,
  turnTimeoutSec: true,
}).extend({ target: WakeEndpointSchema });

/** What any wake target may be: the operator's allow-list and the delivery's bounds. */
const WakeDeliverySchema = z.strictObject({
  allowedHosts: z
    .array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]{2,45}\]$/))
    .max(256)
    .default([])
    .describe("Host names a wake target may name; a target on any other host is refused"),
  allowPrivateNetworks: z
    .boolean()
    .default(false)
    .describe("Let targets resolve to loopback, private or link-local addresses (a LAN or a test)"),
  publicBaseUrl: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/)
    .optional()
    .describe("Where woken agents reach this world's AIC (named in each wake)"),
  timeoutMs: z.int().min(100).max(60_000).default(5000).describe("One delivery attempt's time limit"),
  maxAttempts: z.int().min(1).max(10).default(4).describe("Attempts per wake (5xx and timeouts retry)"),
  retryBaseMs: z.int().min(10).max(60_000).default(500),
  queuePerTarget: z.int().min(1).max(1000).default(16).describe("Wakes waiting per target URL"),
  breakerFailures: z.int().min(1).max(100).default(5).describe("Failures in a row that open the circuit"),
  breakerCooldownMs: z.int().min(100).max(3_600_000).default(30_000),
});

/** A cluster room id: the key of its lease, directory entry, log subject and snapshot (NATS subject
 * and KV key tokens: no dots, spaces or wildcards). */
export const CLUSTER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Rooms across gateways (src/cluster, docs/cluster.md): absent, the embedded node:sqlite store
 * stays the only store. Present, the world's ticks go to a shared JetStream log and this gateway
 * serves the world only while it holds its lease. */
const ClusterSchema = z.strictObject({
  servers: z
    .array(z.string().regex(/^(nats|tls):\/\/[^\s]+$/))
    .min(1)
    .max(16)
    .describe("NATS server URLs (JetStream enabled), e.g. nats://10.0.0.5:4222"),
  user: z.string().min(1).max(256).optional().describe("NATS user (with password)"),
  password: z.string().min(1).max(512).optional(),
  token: z.string().min(1).max(512).optional().describe("NATS auth token (instead of user/password)"),
  gatewayId: z
    .string()
    .regex(CLUSTER_ID_PATTERN)
    .describe("This gateway's id in the cluster (unique per gateway; named as the owner in the directory)"),
  publicBaseUrl: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/)
    .describe("Where others reach this gateway (redirects to the owner name it)"),
  rooms: z
    .array(z.string().regex(CLUSTER_ID_PATTERN))
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Cluster rooms this gateway may host (default: its world's name). A gateway serves one at a time: the first whose lease it can take",
    ),
  leaseTtlMs: z
    .int()
    .min(1000)
    .max(60_000)
    .default(3000)
    .describe(
      "A lease not renewed for this long lapses and another gateway takes the room (same on every gateway)",
    ),
  snapshotEveryTicks: z
    .int()
    .min(20)
    .max(1_000_000)
    .default(1200)
    .describe("A snapshot goes to the KV bucket every this many ticks; the log behind it is trimmed"),
  replicas: z.int().min(1).max(5).default(1).describe("JetStream replicas of the log, leases and snapshots"),
});

/** The config as written in `plugins.entries.openclawworld.config`. */
/** `web.maxVisible` unless configured: the nearest 64 actors (the viewer's own included) per browser. */
export const DEFAULT_MAX_VISIBLE = 64;
/** Browsers are served by the fan-out process unless configured otherwise: with the gateway's own
 * core free, it delivered browsers twice the patches at 300 + 100 and 700 + 300 (docs/performance.md). */
export const DEFAULT_FANOUT = "process";

export const PluginConfigSchema = z.strictObject({
  world: z.string().min(1).optional().describe("World directory (default: the bundled world)"),
  defaultRoomId: z.string().regex(ROOM_ID_PATTERN).default("lobby"),
  tickRate: z.int().min(10).max(20).optional(),
  watchWorld: z
    .boolean()
    .default(false)
    .describe(
      "Reload the world's definition live when a file of its directory changes (npm start turns it on; docs/configuration.md)",
    ),
  agents: z
    .record(
      z.string().regex(AGENT_ID_PATTERN),
      z.strictObject({
        token: z.string().min(16).max(512).optional(),
        name: z
          .string()
          .min(1)
          .max(64)
          .superRefine((name, ctx) => {
            const problem = nameProblem(name, "agent");
            if (problem) ctx.addIssue({ code: "custom", message: problem });
          })
          .optional(),
      }),
    )
    .default({}),
  residents: z
    .record(z.string().regex(AGENT_ID_PATTERN), ResidentSchema)
    .default({})
    .describe("Gateway agents (by agent id) that live in the world and are woken by it"),
  residentBudget: ResidentBudgetSchema.prefault({}),
  wakeTargets: z
    .record(z.string().regex(AGENT_ID_PATTERN), WakeTargetSchema)
    .default({})
    .describe("AIC agents (by agent id) living outside this gateway that the world wakes"),
  wakeDelivery: WakeDeliverySchema.prefault({}),
  tools: z
    .strictObject({
      ...ToolLists,
      perAgent: z.record(z.string(), z.strictObject(ToolLists)).default({}),
      timeoutMs: z.int().min(1000).max(120_000).default(30_000),
      disabled: toolNameList()
        .default([])
        .describe(
          "Optional tools to keep off (the default). Listing a required tool here is a load error: deny it instead.",
        ),
    })
    .prefault({}),
  // The PRD's own plugin config (PRD 8.1: baseUrl, apiKey, defaultRoomId, defaultAgentId at the top
  // level) is remote mode written flat; it is read as `remote` (defaultRoomId is shared by both).
  baseUrl: z
    .string()
    .regex(/^https?:\/\//)
    .optional()
    .describe("Remote mode as the PRD writes it: the AIC server's base URL (the same as remote.baseUrl)"),
  apiKey: z.string().optional().describe("Remote mode as the PRD writes it (the same as remote.apiKey)"),
  defaultAgentId: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .optional()
    .describe("Remote mode as the PRD writes it (the same as remote.defaultAgentId)"),
  remote: z
    .strictObject({
      baseUrl: z.string().regex(/^https?:\/\//),
      apiKey: z.string().optional(),
      defaultAgentId: z.string().regex(AGENT_ID_PATTERN).optional(),
      retryMaxAttempts: z.int().min(0).max(10).default(3),
      retryBaseDelayMs: z.int().min(10).max(5000).default(500),
    })
    .optional(),
  web: z
    .strictObject({
      joinCode: z.string().min(4).max(64).optional(),
      resumeGraceSec: z.int().min(0).max(3600).default(30),
      // WebSocket admission (src/http/humans/connection-admission.ts): refusals close with 1013 and a reason.
      maxConnections: z.int().min(1).max(100_000).default(200).describe("Open human WebSockets in total"),
      maxConnectionsPerAddress: z
        .int()
        .min(1)
        .max(100_000)
        .default(20)
        .describe("Open human WebSockets per remote address"),
      maxHumans: z
        .int()
        .min(1)
        .max(100_000)
        .default(200)
        .describe("Human sessions (connected, or within the resume grace period)"),
      maxHumansPerAddress: z
        .int()
        .min(1)
        .max(100_000)
        .default(20)
        .describe(
          "Human sessions one remote address may hold; at its share, its oldest dropped session gives up its seat to a newcomer from it",
        ),
      allowedOrigins: z
        .array(z.string().regex(/^https?:\/\/[^/\s]+$/))
        .max(64)
        .default([])
        .describe(
          "Browser origins (scheme://host[:port]) besides the gateway's own (loopback names and the address it serves) that may open the WebSocket",
        ),
      allowedHosts: z
        .array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]{2,45}\]$/))
        .max(64)
        .default([])
        .describe(
          "Host names (e.g. a reverse proxy's public name) under which /world and /aic answer, besides loopback names, the address the gateway serves and the hosts of allowedOrigins (a request naming another Host is refused 403: DNS rebinding)",
        ),
      // The patch rate is separate from the tick rate: browsers get a patch every
      // round(tickRate / patchRate) ticks (src/http/humans/view-sync.ts). Unset: every tick.
      patchRate: z
        .int()
        .min(1)
        .max(20)
        .optional()
        .describe("Updates per second sent to each browser (default: the world's tick rate)"),
      // The visible entity limit (src/http/humans/interest.ts): a browser streams the nearest actors
      // within its interest radius, at most this many, its own included; the rest are radar dots.
      maxVisible: z
        .int()
        .min(1)
        .max(10_000)
        .default(DEFAULT_MAX_VISIBLE)
        .describe(
          "Actors each browser is streamed in full at most, its own included: the nearest ones (the rest show as minimap dots)",
        ),
      // Where the browsers' fan-out runs (src/plugin/fanout): "process" hands each browser's socket to
      // a child process that keeps a replica of the world, so the gateway's one thread is spared the
      // per-browser work; TLS sockets cannot be handed over and stay inline either way.
      fanout: z
        .enum(["process", "inline"])
        .default(DEFAULT_FANOUT)
        .describe(
          "Where browsers' WebSockets are served: inline (the gateway's thread) or process (a child process on the same port; TLS browsers stay inline)",
        ),
    })
    .prefault({}),
  // Agents (AIC and tools) that stop calling (src/plugin/quiet-agents.ts): shown away, then out of the
  // world until their next call, which brings them back where they stood. Residents and agents woken
  // by push are quiet by design and never counted.
  quietAgents: z
    .strictObject({
      awayAfterSec: z
        .int()
        .min(0)
        .max(604_800)
        .default(300)
        .describe("An agent not heard from this long is shown away (0: never)"),
      leaveAfterSec: z
        .int()
        .min(0)
        .max(604_800)
        .default(3600)
        .describe("An agent not heard from this long leaves until its next call (0: never)"),
    })
    .prefault({}),
  // Event streams and long-polls (src/aic/event-feed.ts, src/http/aic/sse.ts): each holds a
  // connection, so they are bounded; a refusal is rate_limited (429, retryable, Retry-After).
  events: z
    .strictObject({
      parkedPollsPerAgent: z
        .int()
        .min(1)
        .max(1000)
        .default(4)
        .describe("Long-polls one agent may have parked at once"),
      parkedPollsTotal: z
        .int()
        .min(1)
        .max(100_000)
        .default(2000)
        .describe("Long-polls parked at once, all agents"),
      streamsPerAgent: z
        .int()
        .min(1)
        .max(1000)
        .default(4)
        .describe("SSE event streams one agent may have open"),
      streamsTotal: z
        .int()
        .min(1)
        .max(100_000)
        .default(1000)
        .describe("SSE event streams open at once, all agents"),
      streamMaxBufferedKiB: z
        .int()
        .min(16)
        .max(65_536)
        .default(1024)
        .describe("An SSE stream whose unsent output stays above this for streamSlowReaderSec is closed"),
      streamSlowReaderSec: z.int().min(1).max(600).default(10),
    })
    .prefault({}),
  rateLimits: z
    .strictObject({
      disabled: z.boolean().default(false),
      classes: z
        .record(z.string(), z.strictObject({ perSec: z.number().positive(), burst: z.int().min(1) }))
        .default({}),
    })
    .prefault({}),
  snapshot: z
    .strictObject({
      enabled: z.boolean().default(true),
      intervalSec: z.int().min(5).max(86_400).default(60),
      /** false: each tick is written to the OS only (survives a killed gateway, not a power loss)
       * instead of waiting for the disk. */
      fsync: z.boolean().default(true),
    })
    .prefault({}),
  /** The replay history beside the store (src/runtime/history.ts): every tick and keyframes, pruned
   * behind a keyframe past either bound. A demo room (5 people, 10 agents) takes ~20 MB an hour. */
  replay: z
    .strictObject({
      enabled: z.boolean().default(true),
      keepHours: z
        .number()
        .min(0.01)
        .max(24 * 90)
        .default(24),
      maxMegabytes: z.int().min(1).max(1_000_000).default(1024),
      /** The agents' turns beside the replay (what each was shown, did, and what woke it): their
       * requests and answers past this many MB go oldest first; 0 keeps none. Operator only. */
      agentTurnsMegabytes: z.int().min(0).max(100_000).default(64),
    })
    .prefault({}),
  cluster: ClusterSchema.optional().describe(
    "Rooms across gateways on NATS JetStream (off when absent; docs/cluster.md)",
  ),
});

/** The manifest's configSchema: the input side of PluginConfigSchema as JSON Schema. */
export function pluginConfigJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(PluginConfigSchema, {
    io: "input",
    target: "draft-7",
  });
  return schema;
}

function toolLists(
  lists: { enabled: string[]; denied: string[]; disabled?: string[] },
  path: string,
  issue: (message: string) => void,
): { enabled: OptionalToolName[]; denied: ToolName[] } {
  const known = new Set<string>(ALL_TOOLS);
  const enabled = lists.enabled.map(canonicalToolName);
  const denied = lists.denied.map(canonicalToolName);
  const disabled = (lists.disabled ?? []).map(canonicalToolName);
  for (const name of [...enabled, ...denied, ...disabled]) {
    if (!known.has(name)) issue(`unknown tool "${name}" in ${path}; known tools: ${ALL_TOOLS.join(", ")}`);
  }
  for (const name of [...enabled, ...disabled]) {
    if ((REQUIRED_TOOLS as readonly string[]).includes(name)) {
      issue(
        `${name} is a required tool and is always enabled; it cannot be listed in ${path}.enabled/disabled. To block it on purpose, add it to ${path}.denied.`,
      );
    }
  }
  return { enabled: enabled as OptionalToolName[], denied: denied as ToolName[] };
}

type RawConfig = z.output<typeof PluginConfigSchema>;

/** Remote mode from `remote`, or from the PRD's flat keys (baseUrl, apiKey, defaultAgentId). */
function remoteMode(raw: RawConfig, issue: (message: string) => void): RawConfig["remote"] {
  const flat = { baseUrl: raw.baseUrl, apiKey: raw.apiKey, defaultAgentId: raw.defaultAgentId };
  const given = Object.entries(flat)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (given.length === 0) return raw.remote;
  if (raw.remote) {
    issue(`${given.join(", ")} and remote both configure remote mode: keep one (remote.${given[0]})`);
    return raw.remote;
  }
  if (raw.baseUrl === undefined) {
    issue(`${given.join(", ")} configure remote mode (the PRD's flat keys) and need baseUrl too`);
    return undefined;
  }
  return PluginConfigSchema.shape.remote.unwrap().parse({
    baseUrl: raw.baseUrl,
    ...(raw.apiKey === undefined ? {} : { apiKey: raw.apiKey }),
    ...(raw.defaultAgentId === undefined ? {} : { defaultAgentId: raw.defaultAgentId }),
  });
}

/** The cluster config with its credentials in one place; the default rooms are filled in at
 * start-up (the world's name is known only once its directory is loaded). */
function clusterConfig(raw: NonNullable<RawConfig["cluster"]>, issue: (message: string) => void) {
  if (raw.token !== undefined && (raw.user !== undefined || raw.password !== undefined))
    issue("cluster: give either token or user/password, not both");
  if ((raw.user === undefined) !== (raw.password === undefined))
    issue("cluster: user and password go together");
  return { ...raw, publicBaseUrl: raw.publicBaseUrl.replace(/\/+$/, "") };
}

/** PluginConfigSchema, then the rules JSON Schema cannot express, into the shape the plugin uses. */
export const ResolvedConfigSchema = PluginConfigSchema.transform((raw, ctx) => {
  const issue = (message: string) => ctx.addIssue({ code: "custom", message });
  const tokens = Object.values(raw.agents).flatMap((a) => (a.token ? [a.token] : []));
  if (new Set(tokens).size !== tokens.length) issue("two agents share a token");
  const perAgent: Record<string, { enabled: OptionalToolName[]; denied: ToolName[] }> = {};
  for (const [agentId, lists] of Object.entries(raw.tools.perAgent)) {
    perAgent[agentId] = toolLists(lists, `tools.perAgent.${agentId}`, issue);
  }
  const remote = remoteMode(raw, issue);
  for (const agentId of Object.keys(raw.wakeTargets)) {
    if (!raw.agents[agentId]?.token) issue(`wakeTargets.${agentId}: not an AIC agent with a token (agents)`);
    if (raw.residents[agentId]) issue(`wakeTargets.${agentId}: a resident of this gateway is woken here`);
  }
  return {
    fingerprint: configFingerprint(raw),
    worldDir: raw.world?.trim() || BUNDLED_WORLD_DIR,
    defaultRoomId: raw.defaultRoomId,
    ...(raw.tickRate === undefined ? {} : { tickRate: raw.tickRate }),
    watchWorld: raw.watchWorld,
    agents: Object.fromEntries(
      Object.entries(raw.agents).map(([agentId, a]) => [
        agentId,
        { ...(a.token ? { token: a.token } : {}), name: a.name ?? agentId },
      ]),
    ) as Record<string, { token?: string; name: string }>,
    residents: Object.fromEntries(
      Object.entries(raw.residents).map(([agentId, r]) => [
        agentId,
        { ...r, home: { roomId: r.home.roomId ?? raw.defaultRoomId, tx: r.home.tx, ty: r.home.ty } },
      ]),
    ),
    residentBudget: raw.residentBudget,
    wakeTargets: raw.wakeTargets,
    wakeDelivery: {
      ...raw.wakeDelivery,
      allowedHosts: raw.wakeDelivery.allowedHosts.map((h) => h.toLowerCase()),
    },
    tools: { ...toolLists(raw.tools, "tools", issue), perAgent, timeoutMs: raw.tools.timeoutMs },
    ...(remote ? { remote: { ...remote, baseUrl: remote.baseUrl.replace(/\/+$/, "") } } : {}),
    web: raw.web,
    events: raw.events,
    quietAgents: raw.quietAgents,
    rateLimits: raw.rateLimits,
    snapshot: raw.snapshot,
    replay: raw.replay,
    ...(raw.cluster ? { cluster: clusterConfig(raw.cluster, issue) } : {}),
  };
});

export type ResolvedConfig = z.infer<typeof ResolvedConfigSchema>;
export type ToolPolicyConfig = ResolvedConfig["tools"];
export type RemoteConfig = NonNullable<ResolvedConfig["remote"]>;
export type ResidentConfig = ResolvedConfig["residents"][string];
export type ClusterConfig = NonNullable<ResolvedConfig["cluster"]>;
export type WakeTargetConfig = ResolvedConfig["wakeTargets"][string];
export type WakeEndpoint = WakeTargetConfig["target"];
export type WakeDeliveryConfig = ResolvedConfig["wakeDelivery"];

/** The host names the plugin's routes answer to besides its own (src/http/host-rule.ts): the listed
 * ones and those of the allowed browser origins, whose pages name them as Host. */
export function allowedHosts(web: {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}): string[] {
  const originHosts = web.allowedOrigins.flatMap((origin) => {
    try {
      return [new URL(origin).hostname];
    } catch {
      return []; // not a URL: admission.ts ignores it as an origin too
    }
  });
  return [...web.allowedHosts, ...originHosts];
}

/** What identifies a plugin config: the hash of its canonical form with every default filled in, so
 * the same settings give the same fingerprint whether the gateway filled the defaults or zod did. A
 * launcher compares it with the running world's (operator status `config.fingerprint`) to know that
 * what it wrote is what runs. */
export function configFingerprint(parsed: z.output<typeof PluginConfigSchema>): string {
  return createHash("sha256").update(canonicalJson(parsed)).digest("hex").slice(0, 32);
}

/** Parses plugin config once; a bad one fails the load with every problem and where it is. */
export function resolveConfig(raw: unknown): ResolvedConfig {
  const parsed = ResolvedConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) =>
    i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message,
  );
  throw new ConfigError(`openclawworld config: ${problems.join("; ")}`);
}
