// `openclaw ocw ...` as the gateway's CLI parses it (commander, the parser the gateway hands a
// plugin's CLI), run in this process against an operator route at `url`: what it printed. The
// real `openclaw` process costs ~15-30 s of CPU per start (it loads and captures every plugin), so
// an end-to-end test runs the real CLI for what only a process shows (the token from the
// environment, the exit code) and this for the rest: the same command code, the same gateway.
import { Command } from "commander";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { vi } from "vitest";
import { registerWorldCli } from "../../src/plugin/operator-cli.ts";

/** Throws with what the command wrote to stderr when it failed (it sets process.exitCode, which
 * is put back: the test runner's own exit code is not the command's). */
export async function runOcw(url: string, token: string, ...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  let registrar: ((ctx: { program: Command; config: unknown }) => void) | undefined;
  registerWorldCli({
    registerCli: (r: typeof registrar) => {
      registrar = r;
    },
  } as unknown as OpenClawPluginApi);
  registrar!({ program, config: {} });
  const exitCode = process.exitCode;
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    await program.parseAsync(["ocw", ...args, `--url=${url}`, `--token=${token}`], { from: "user" });
    const failed = process.exitCode !== exitCode;
    const errors = err.mock.calls.map((c) => String(c[0])).join("");
    if (failed) throw new Error(`openclaw ocw ${args.join(" ")} failed: ${errors.trim()}`);
    return out.mock.calls.map((c) => String(c[0])).join("");
  } finally {
    process.exitCode = exitCode;
    out.mockRestore();
    err.mockRestore();
  }
}
