// fetch, but a request that fails to get an answer says which one it was, when, and why: undici's
// bare "fetch failed" keeps the reason (ECONNRESET, ECONNREFUSED, a socket closed) in its cause, which
// a test's failure message does not show.
export async function namedFetch(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (init?.signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    const why = cause ? ` (${[cause.code, cause.message].filter(Boolean).join(": ")})` : "";
    const { pathname, search } = new URL(url);
    throw new Error(
      `${init?.method ?? "GET"} ${pathname}${search} at ${new Date().toISOString()}: ${String(error)}${why}`,
      { cause: error },
    );
  }
}
