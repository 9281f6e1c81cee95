// A human for the scenarios: a real WebSocket client speaking the web client's protocol (join,
// act moveTo, chat_send), the same path a browser takes. `advance` lets the in-process run step
// its world only once the human's input is queued, so the replay stays deterministic.
import { WebSocket } from "ws";
import { ServerFrameReader } from "../src/http/humans/wire-delta.ts";

// biome-ignore lint/suspicious/noExplicitAny: frames from the server, read after their type is checked
type Frame = { type: string; [key: string]: any };

export interface Human {
  readonly entityId: string;
  readonly tile: { tx: number; ty: number };
  /** Say something; resolves with the chat message id the server gave it. */
  chat(channel: "proximity" | "global", message: string): Promise<string>;
  close(): void;
}

export class HumanFailure extends Error {}

/** How the world advances while the human waits for an answer: nothing to do against a live server;
 * in-process, step once the input is queued. */
export type Advance = (answered: () => boolean) => Promise<void>;

const ANSWER_TIMEOUT_MS = 10_000;

export async function connectHuman(
  wsUrl: string,
  name: string,
  advance: Advance,
  joinCode?: string,
): Promise<Human> {
  const ws = new WebSocket(wsUrl);
  const frames: Frame[] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) => {
    try {
      frames.push(reader.read(isBinary ? (data as Buffer) : String(data)) as Frame);
    } catch {
      frames.push({ type: "unparsable" });
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", (error) =>
      reject(new HumanFailure(`human could not connect to ${wsUrl}: ${error.message}`)),
    );
  });

  /** Sends a message and waits for the frame that answers it (its result, or an error for it). */
  async function ask(message: Record<string, unknown>, answers: (f: Frame) => boolean): Promise<Frame> {
    const from = frames.length;
    const found = () =>
      frames
        .slice(from)
        .find((f) => answers(f) || (f.type === "error" && (f.for === message.type || !f.for)));
    ws.send(JSON.stringify(message));
    const started = Date.now();
    await advance(() => found() !== undefined);
    while (!found()) {
      if (Date.now() - started > ANSWER_TIMEOUT_MS) {
        throw new HumanFailure(`human: no answer to ${message.type} within ${ANSWER_TIMEOUT_MS} ms`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const frame = found()!;
    if (frame.type === "error")
      throw new HumanFailure(`human ${message.type}: ${frame.code}: ${frame.message}`);
    return frame;
  }

  const welcome = await ask(
    { type: "join", name, ...(joinCode ? { joinCode } : {}) },
    (f) => f.type === "welcome",
  );
  const self = (welcome.entities as { id: string; tx: number; ty: number }[]).find(
    (e) => e.id === welcome.entityId,
  );
  if (!self) throw new HumanFailure("human: the welcome does not show the human itself");
  return {
    entityId: String(welcome.entityId),
    tile: { tx: self.tx, ty: self.ty },
    async chat(channel, message) {
      const result = await ask(
        { type: "chat_send", channel, message },
        (f) => f.type === "result" && f.for === "chat_send",
      );
      return String(result.data?.chatMessageId);
    },
    close() {
      ws.close(1000, "scenario done");
    },
  };
}
