// The bundled lobby ticking in process behind the real human web surface on 127.0.0.1, for the web
// benchmarks (bandwidth, client frame rate): no gateway, so the figures measure the surface itself.
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
