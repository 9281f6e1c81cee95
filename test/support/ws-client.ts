// A browser's WebSocket as tests drive it: open, join (or resume), and read the JSON frames.
import { WebSocket } from "ws";
import { until } from "./wait.ts";

export interface TextFrame {
  type: string;
  [key: string]: unknown;
}

/** Opens `url`, sends a join with `message` and waits for the welcome (or the refusal). */
export async function joinWs(
  url: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; frames: TextFrame[]; welcome: TextFrame }> {
  const ws = new WebSocket(url, { headers });
  const frames: TextFrame[] = [];
  ws.on("message", (data, binary) => {
    if (!binary) frames.push(JSON.parse(data.toString()) as TextFrame);
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ type: "join", ...message }));
  await until("a welcome", () => frames.some((f) => f.type === "welcome" || f.type === "error"));
  return { ws, frames, welcome: frames.find((f) => f.type === "welcome" || f.type === "error")! };
}
