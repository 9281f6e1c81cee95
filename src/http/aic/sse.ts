// GET /events/stream (PRD 9.3): the agent's events as Server-Sent Events. Each `id:` is the event's
// cursor, so a reconnect with Last-Event-ID continues where it stopped; a comment heartbeat keeps
// proxies from closing an idle stream; a read error ends the stream with an `event: error` frame.
import type { IncomingMessage, ServerResponse } from "node:http";
import { envelopeJson } from "../../aic/event-envelope.ts";
import type { AicService } from "../../aic/service.ts";
import { type AicHttpLogger, type Answer, aicLocals } from "./answer.ts";

/** The longest a stream read parks before looping (keeps each read bounded). */
const SSE_READ_WAIT_MS = 25_000;

export interface SseDeps {
  service: AicService;
  logger: AicHttpLogger;
  answer: Answer;
  heartbeatMs: number;
  /** An AbortSignal that fires when the client goes away or the adapter closes. */
  abortOnDisconnect(res: ServerResponse): { signal: AbortSignal; release(): void };
  /** Tells the route handler the request is handled (the stream stays open). */
  opened(res: ServerResponse): void;
  /** A reader that leaves more than this unsent ... */
  maxBufferedBytes: number;
  /** ... for this long has its stream closed (as a WebSocket over 1 MiB for 10 s is). */
  slowReaderMs: number;
}

/** Whether `res` drained its buffer within `ms` (false: still full, or the stream went away). */
function drainedWithin(res: ServerResponse, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      signal.removeEventListener("abort", onAbort);
      resolve(drained);
    };
    const onDrain = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.on("drain", onDrain);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function createEventStream(deps: SseDeps) {
  const { service, logger, answer } = deps;
  return async (req: IncomingMessage, res: ServerResponse, query: Record<string, unknown>): Promise<void> => {
    const caller = aicLocals(res).agentId!;
    const lastEventId = req.headers["last-event-id"];
    if (typeof lastEventId === "string" && lastEventId !== "") query.sinceCursor = lastEventId;
    const subscribed = await service.subscribeEvents(caller, query);
    if (subscribed.status === "error") return answer(res, subscribed);
    const subscription = subscribed.data;
    const abort = deps.abortOnDisconnect(res);
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    try {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        "x-request-id": aicLocals(res).requestId,
      });
      res.write(`retry: 2000\n: stream open at ${subscription.cursor}\n\n`);
      deps.opened(res);
      heartbeat = setInterval(() => {
        // A reader that is behind needs no keep-alive: its buffer is what keeps the line busy.
        if (!res.writableEnded && res.writableLength === 0) res.write(": heartbeat\n\n");
      }, deps.heartbeatMs);
      heartbeat.unref?.();
      while (!abort.signal.aborted && !res.writableEnded) {
        const result = await subscription.next(SSE_READ_WAIT_MS, abort.signal);
        if (abort.signal.aborted || res.writableEnded) break;
        if (result.status === "error") {
          res.write(`event: error\ndata: ${JSON.stringify(result)}\n\n`);
          break;
        }
        let chunk = "";
        for (const event of result.data.events)
          chunk += `id: ${event.cursor}\ndata: ${envelopeJson(event)}\n\n`;
        if (chunk) res.write(chunk);
        // A reader that does not keep up is not read for (its events wait in the feed, not in
        // memory here); one that stays behind is cut, so twenty idle readers cannot hold the heap.
        if (
          res.writableLength > deps.maxBufferedBytes &&
          !(await drainedWithin(res, deps.slowReaderMs, abort.signal))
        ) {
          if (!abort.signal.aborted) {
            logger.warn(
              `openclawworld aic: SSE closed, reader too slow agent=${caller} requestId=${aicLocals(res).requestId} unsentBytes=${res.writableLength}`,
            );
            res.destroy();
          }
          break;
        }
      }
    } finally {
      clearInterval(heartbeat);
      subscription.close();
      abort.release();
      if (!res.writableEnded) res.end();
      logger.debug?.(`openclawworld aic: SSE closed agent=${caller} requestId=${aicLocals(res).requestId}`);
    }
  };
}
