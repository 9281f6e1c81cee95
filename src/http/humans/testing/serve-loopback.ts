// Serves a web surface on a bare node:http server at 127.0.0.1 (a free port), as the gateway would
// route it: for unit tests and benchmarks that need real sockets without starting a gateway.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebSurfaceHandle } from "../web-surface.ts";

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  httpBase: string;
  /** `ws://127.0.0.1:<port>/world/ws` */
  wsUrl: string;
  /** Closes the surface (its sockets and timers), then the server. */
  close(): Promise<void>;
}

export async function serveOnLoopback(surface: WebSurfaceHandle): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    void surface.handleHttp(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  server.on("upgrade", (req, socket, head) => surface.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    httpBase: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/world/ws`,
    async close() {
      await surface.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
