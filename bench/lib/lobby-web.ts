// The bundled lobby ticking in process behind the real human web surface on 127.0.0.1, for the web
// benchmarks (bandwidth, client frame rate): no gateway, so the figures measure the surface itself.
import { WebSocket } from "ws";
import { RateLimiter } from "../../src/aic/rate-limit.ts";
import { AicService } from "../../src/aic/service.ts";
import { BUNDLED_WORLD_DIR } from "../../src/config/config.ts";
import { type LoopbackServer, serveOnLoopback } from "../../src/http/humans/testing/serve-loopback.ts";
import { createWebSurface } from "../../src/http/humans/web-surface.ts";
import { loadWorldDir } from "../../src/runtime/load-world-dir.ts";
import { WorldRuntime } from "../../src/runtime/world-runtime.ts";
import { World } from "../../src/world/world.ts";

export interface LobbyWeb {
  server: LoopbackServer;
  stop(): Promise<void>;
}

export async function startLobbyWeb(): Promise<LobbyWeb> {
  const quiet = { info() {}, warn() {}, error() {} };
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const surface = createWebSurface({ service, worldDir: BUNDLED_WORLD_DIR, logger: quiet });
  const server = await serveOnLoopback(surface);
  runtime.start();
  return {
    server,
    async stop() {
      await server.close();
      runtime.stop();
    },
  };
}

/** The plaza loop the web benchmarks' walkers go round. */
const PLAZA_LOOP = [
  [20, 13],
  [26, 13],
  [26, 19],
  [20, 19],
] as const;

/** `count` socket clients joined to the web surface at `base`, each walking the plaza loop (a step
 * every `everyMs`, a few tiles apart) and saying something room-wide every third step: figures and
 * chat for a page to draw. */
export async function plazaWalkers(base: string, count: number, everyMs = 1500): Promise<{ stop(): void }> {
  const walkers: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(`${base.replace("http", "ws")}/world/ws`);
    await new Promise<void>((resolve, reject) => {
      ws.once("error", reject);
      ws.on("message", (data) => {
        if (String(data).includes('"type":"welcome"')) resolve();
      });
      ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: `Walker ${i}` })));
    });
    walkers.push(ws);
  }
  let step = 0;
  const timer = setInterval(() => {
    walkers.forEach((ws, i) => {
      const [tx, ty] = PLAZA_LOOP[(step + i) % PLAZA_LOOP.length]!;
      ws.send(JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: tx + (i % 3), ty } } }));
      if ((step + i) % 3 === 0)
        ws.send(
          JSON.stringify({
            type: "chat_send",
            channel: "global",
            message: `walker ${i} says hello at step ${step}`,
          }),
        );
    });
    step += 1;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      for (const ws of walkers) ws.close();
    },
  };
}
