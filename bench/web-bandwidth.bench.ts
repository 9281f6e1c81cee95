// Per-client WebSocket bandwidth of the human web surface in a fixed scenario: the bundled lobby
// world ticking in process, WALKERS browser-like clients joined over real sockets on 127.0.0.1, each
// walking a fixed loop of plaza tiles (a moveTo every 2 s) and chatting once. Every client counts
// the bytes of the frames it receives (text and binary payloads). The encoding alone, against
// @colyseus/schema and the JSON wire before it: bench/web-encode.bench.ts.
// Run: npx node bench/web-bandwidth.bench.ts [walkers] [seconds]
// The last output line is one JSON object with the figures.
import { WebSocket } from "ws";
import { startLobbyWeb } from "./lib/lobby-web.ts";

const WALKERS = Number(process.argv[2] ?? 8);
const SECONDS = Number(process.argv[3] ?? 12);
// A loop around the plaza and out to the west (some walkers leave others' 16-tile interest range).
const LOOP = [
  [20, 13],
  [26, 13],
  [26, 19],
  [20, 19],
  [5, 17],
  [3, 6],
  [20, 13],
];

const lobby = await startLobbyWeb();
const url = lobby.server.wsUrl;

interface Client {
  ws: WebSocket;
  bytes: number;
  frames: number;
  counting: boolean;
}
const clients: Client[] = [];
for (let i = 0; i < WALKERS; i++) {
  const ws = new WebSocket(url);
  const client: Client = { ws, bytes: 0, frames: 0, counting: false };
  await new Promise<void>((resolve, reject) => {
    ws.once("error", reject);
    ws.on("message", (data: Buffer, isBinary) => {
      if (client.counting) {
        client.bytes += data.length;
        client.frames += 1;
      }
      if (!isBinary && String(data).includes('"type":"welcome"')) resolve();
    });
    ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: `Walker ${i}` })));
  });
  clients.push(client);
}
await new Promise((r) => setTimeout(r, 500));
for (const c of clients) c.counting = true;
const started = performance.now();
let step = 0;
const timer = setInterval(() => {
  clients.forEach((c, i) => {
    const [tx, ty] = LOOP[(step + i) % LOOP.length]!;
    c.ws.send(
      JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: tx! + (i % 3), ty: ty! } } }),
    );
    if (step === i % 4)
      c.ws.send(JSON.stringify({ type: "chat_send", channel: "global", message: `hi ${i}` }));
  });
  step += 1;
}, 2000);
await new Promise((r) => setTimeout(r, SECONDS * 1000));
clearInterval(timer);
const elapsedSec = (performance.now() - started) / 1000;
for (const c of clients) c.counting = false;
const perClient = clients.map((c) => c.bytes / elapsedSec);
for (const c of clients) c.ws.terminate();
await lobby.stop();
const mean = perClient.reduce((a, b) => a + b, 0) / perClient.length;
console.log(
  JSON.stringify({
    bench: "web-bandwidth",
    walkers: WALKERS,
    seconds: Math.round(elapsedSec * 10) / 10,
    meanBytesPerSecPerClient: Math.round(mean),
    maxBytesPerSecPerClient: Math.round(Math.max(...perClient)),
    meanFramesPerSecPerClient:
      Math.round((clients.reduce((a, c) => a + c.frames, 0) / clients.length / elapsedSec) * 10) / 10,
  }),
);
