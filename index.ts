// OpenClawWorld plugin entry. The wiring lives in src/plugin/register.ts; the world itself lives in
// the service (started by the gateway) behind a process-level singleton that tools and routes share.
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { registerPlugin } from "./src/plugin/register.ts";

export default definePluginEntry({
  id: "openclawworld",
  name: "OpenClawWorld",
  description: "A 2D multiplayer world shared by humans and AI agents, hosted inside the gateway.",
  register: registerPlugin,
});
