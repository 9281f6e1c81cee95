// The load harness's HTTP client for its agents: node:http over one keep-alive agent. With global
// fetch (undici) the harness used a third more CPU at 1,000 participants (80.5 against 60.4 % of a
// core), and it shares the machine's two cores with the gateway it measures: every millisecond the
// generator spends is one the gateway's GC helpers and I/O do not get.
import http from "node:http";

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });

export interface JsonReply {
  status: number;
  body: unknown;
}

/** POSTs `body` (already JSON) and parses the reply as JSON whatever its status, as AIC and
 * /tools/invoke answer errors in JSON too. Rejects on a transport failure, on a reply that is not
 * JSON, or when the socket is idle for `timeoutMs`. A request that failed because the server had
 * just closed the idle keep-alive socket it went out on is sent once more on a fresh one (Node's
 * documented `reusedSocket` pattern; every harness request is a read or carries a txId). */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<JsonReply> {
  const payload = Buffer.from(body);
  try {
    return await postOnce(url, headers, payload, timeoutMs);
  } catch (error) {
    if (!(error as { reusedSocket?: boolean }).reusedSocket) throw error;
    return postOnce(url, headers, payload, timeoutMs);
  }
}

function postOnce(
  url: string,
  headers: Record<string, string>,
  payload: Buffer,
  timeoutMs: number,
): Promise<JsonReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent: keepAlive,
        headers: { ...headers, "content-type": "application/json", "content-length": payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (error.code === "ECONNRESET" || error.message === "socket hang up");
      reject(Object.assign(error, { reusedSocket: stale }));
    });
    req.end(payload);
  });
}
