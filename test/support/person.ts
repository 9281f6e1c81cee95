// A person in the world over the real WebSocket (`/world/ws`): joins under a name, says things on the
// global channel and collects the chat it hears.
import { WebSocket } from "ws";
import { ServerFrameReader } from "../../src/http/humans/wire-delta.ts";

export interface Person {
  ws: WebSocket;
  heard: { from: string; message: string }[];
  say(message: string): void;
  /** Click a tile to walk there (the page's `act` moveTo). */
  walkTo(tx: number, ty: number): void;
}

export async function joinPerson(baseUrl: string, name: string, look?: number): Promise<Person> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/world/ws`);
  const heard: Person["heard"] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) => {
    const frame = reader.read(isBinary ? (data as Buffer) : String(data)) as {
      type: string;
      events?: { type: string; payload: { fromEntityId?: string; message?: string } }[];
    };
    for (const e of frame.type === "events" ? (frame.events ?? []) : [])
      if (e.type === "chat.message")
        heard.push({ from: e.payload.fromEntityId!, message: e.payload.message! });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ type: "join", name, ...(look === undefined ? {} : { look }) }));
  const say = (message: string) => ws.send(JSON.stringify({ type: "chat_send", channel: "global", message }));
  const walkTo = (tx: number, ty: number) =>
    ws.send(JSON.stringify({ type: "act", action: { kind: "moveTo", dest: { tx: tx, ty: ty } } }));
  return { ws, heard, say, walkTo };
}
