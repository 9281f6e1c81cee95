// A small agent of your own on OpenClawWorld's AIC client (docs/client.md): it enters a room, looks
// around, reads the first thing that can be read (walking there first), says hello, and listens to
// what happens next. Against a gateway running the plugin:
//   npm run build:plugin   # the package's openclawworld/client is dist/client.js
//   OCW_BASE_URL=http://127.0.0.1:18789/aic/v0.1 OCW_TOKEN=<agent token> OCW_AGENT=<agent id> \
//     OCW_ROOM=lobby node examples/agent.ts
import { AicClient, type AicEvent } from "openclawworld/client";

export interface AgentOptions {
  baseUrl: string;
  token: string;
  agentId: string;
  roomId: string;
  /** How many events to listen for before stopping. */
  listenFor?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export async function runAgent(options: AgentOptions): Promise<{ read?: string; heard: AicEvent[] }> {
  const { agentId, roomId } = options;
  const log = options.log ?? console.log;
  const aic = new AicClient({ baseUrl: options.baseUrl, token: options.token });

  // join is this server's extension; a PRD-only server has the agent in its room already.
  const joined = await aic.join({ agentId, roomId });
  const cursor = joined.status === "ok" ? joined.data.cursor : "c_0";

  const seen = await aic.observe({ agentId, roomId, radius: 2000, detail: "full" });
  if (seen.status === "error") throw new Error(`observe: ${seen.error.code}: ${seen.error.message}`);
  log(`I am ${seen.data.self.name} in ${seen.data.room.roomId}; I see ${seen.data.nearby.length} things`);

  let read: string | undefined;
  const readable = seen.data.nearby.find((n) => n.affords.some((a) => a.action === "read"));
  if (readable) {
    const { tx, ty } = readable.entity.tile ?? seen.data.self.tile!;
    // Stand beside it (a txId is made for each call, and kept across its retries).
    await aic.moveTo({ agentId, roomId, dest: { tx, ty: ty + 1 } });
    for (let tries = 0; tries < 50; tries++) {
      const outcome = await aic.interact({ agentId, roomId, targetId: readable.entity.id, action: "read" });
      if (outcome.status === "ok" && outcome.data.outcome.type !== "too_far") {
        read = outcome.data.outcome.message;
        log(`${readable.entity.name} says: ${read}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 100)); // still walking there
    }
  }

  await aic.chatSend({ agentId, roomId, channel: "proximity", message: "Hello from an example agent" });

  // Events by long-poll from where the join left us; each event's cursor resumes after it.
  const heard: AicEvent[] = [];
  for await (const event of aic.events(
    { agentId, roomId, sinceCursor: cursor, waitMs: 1000 },
    options.signal ? { signal: options.signal } : {},
  )) {
    heard.push(event);
    log(`${event.type} ${JSON.stringify(event.payload)}`);
    if (heard.length >= (options.listenFor ?? 5)) break;
  }
  return { ...(read ? { read } : {}), heard };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`set ${name}`);
    return value;
  };
  await runAgent({
    baseUrl: env("OCW_BASE_URL"),
    token: env("OCW_TOKEN"),
    agentId: env("OCW_AGENT"),
    roomId: process.env.OCW_ROOM ?? "lobby",
  });
}
