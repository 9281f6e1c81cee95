// Where a world file that does not parse goes wrong, as a line and column a person can go to: a
// map edited by hand (or a merge gone wrong) otherwise says only "unreadable JSON".
import type { TextPosition } from "./world-errors.ts";

/** The 1-based line and column of a character offset in a text. */
export function positionOf(text: string, offset: number): TextPosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: before.length - lineStart + 1 };
}

const AT_POSITION = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?/;

/** A prefix of `text` fails for a reason of its own, not merely by ending early. */
function failsBeforeItsEnd(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith("Unexpected end of JSON input")) return false;
    const at = AT_POSITION.exec(message);
    return !at || Number(at[1]) < prefix.length;
  }
}

/** The offending character's offset: the parser's own, or (when its message gives none, as for
 * "Unexpected token") the shortest prefix that already fails, found by halving. */
function jsonErrorOffset(text: string, message: string): number {
  const at = AT_POSITION.exec(message);
  if (at) return Number(at[1]);
  if (message.startsWith("Unexpected end of JSON input")) return text.length;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (failsBeforeItsEnd(text.slice(0, mid + 1))) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** What JSON.parse said, without its own position or the text it quotes, and where. */
export function jsonSyntaxProblem(text: string, error: Error): { problem: string; at: TextPosition } {
  const at = positionOf(text, jsonErrorOffset(text, error.message));
  const problem = error.message
    .replace(AT_POSITION, "")
    .replace(/, .* is not valid JSON$/s, "")
    .trim();
  return { problem, at };
}

/** What the TOML parser said (smol-toml's error carries line and column), without the code block
 * it draws under its message. */
export function tomlSyntaxProblem(error: Error): { problem: string; at?: TextPosition } {
  const { line, column } = error as Error & { line?: unknown; column?: unknown };
  const problem = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "").trim();
  return typeof line === "number" && typeof column === "number"
    ? { problem, at: { line, column } }
    : { problem };
}
