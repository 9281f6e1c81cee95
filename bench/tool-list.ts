// The ocw_* tool list as a model receives it in direct mode: each tool as an OpenAI-style function
// definition (name, description, JSON Schema parameters), the form the gateway sends a provider.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { resolveConfig } from "../src/config/config.ts";
import { registerWorldTools } from "../src/tools/register-tools.ts";
import type { AgentToolLike } from "../src/tools/tool-kit.ts";

/** Every ocw_* tool an agent with every optional tool enabled is offered. */
export function toolDefinitions(): { type: "function"; function: Record<string, unknown> }[] {
  const config = resolveConfig({});
  const tools: AgentToolLike[] = [];
  registerWorldTools(
    {
      registerTool(factory: unknown) {
        tools.push((factory as (ctx: { agentId: string }) => AgentToolLike)({ agentId: "main" }));
      },
    } as never,
    config,
    { aic: () => undefined, status: () => ({}) as never },
  );
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** o200k tokens of the whole list, and of each tool. */
export function toolListTokens(): { total: number; perTool: Record<string, number> } {
  const defs = toolDefinitions();
  const perTool = Object.fromEntries(defs.map((d) => [d.function.name, encode(JSON.stringify(d)).length]));
  return { total: encode(JSON.stringify(defs)).length, perTool };
}
