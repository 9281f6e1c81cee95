// The churn the two churn benchmarks drive: `loops` loops, each opening the human WebSocket, joining,
// waiting for the welcome (or a refusal) and dropping the socket (terminate: a network drop, so the
// character keeps its seat for the resume grace period), again and again for `seconds`.
import { WebSocket } from "ws";

export interface ChurnCount {
  joins: number;
  refusals: number;
  elapsedSec: number;
  /** performance.now() when the churn stopped. */
  endedAt: number;
}

function churnOnce(wsUrl: string, n: number, count: { joins: number; refusals: number }): Promise<void> {
  const ws = new WebSocket(wsUrl);
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => done(), 10_000);
    function done() {
      clearTimeout(timer);
      ws.terminate();
      resolve();
    }
    ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: `Churn ${n}` })));
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const type = (JSON.parse(String(data)) as { type: string }).type;
      if (type === "welcome") count.joins += 1;
      else if (type === "error") count.refusals += 1;
      else return;
      done();
    });
    ws.once("close", done);
    ws.once("error", done);
  });
}

export async function churn(wsUrl: string, loops: number, seconds: number): Promise<ChurnCount> {
  const count = { joins: 0, refusals: 0 };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < deadline) await churnOnce(wsUrl, n++, count);
    }),
  );
  const endedAt = performance.now();
  return { ...count, elapsedSec: (endedAt - started) / 1000, endedAt };
}
