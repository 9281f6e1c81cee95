// `openclaw ocw ...` as the gateway's CLI parses it (commander, the parser the gateway hands a
// plugin's CLI), run in this process against an operator route at `url`: what it printed.
import { Command } from "commander";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { vi } from "vitest";
import { registerWorldCli } from "../../src/plugin/cli.ts";

export async function runOcw(url: string, token: string, ...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  let registrar: ((ctx: { program: Command; config: unknown }) => void) | undefined;
  registerWorldCli({
    registerCli: (r: typeof registrar) => {
      registrar = r;
    },
  } as unknown as OpenClawPluginApi);
  registrar!({ program, config: {} });
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    await program.parseAsync(["ocw", ...args, "--url", url, "--token", token], { from: "user" });
    return out.mock.calls.map((c) => String(c[0])).join("");
  } finally {
    out.mockRestore();
  }
}
