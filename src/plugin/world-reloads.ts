// Reloading the world's definition while it runs: on the operator's word (route, CLI) or, with
// `watchWorld`, when a file of the world directory changes. One reload at a time; the last one's
// outcome is in the operator status, and every outcome is logged (a refusal with the file and line).
import { type FSWatcher, readdirSync, watch } from "node:fs";
import path from "node:path";
import { type ReloadOutcome, reloadWorld } from "../runtime/world-reload.ts";
import { describe, type RuntimeLogger } from "../runtime/world-runtime.ts";
import type { WorldHost } from "./host.ts";

/** Editors write a file in steps (truncate, write, rename): the reload waits for them to settle. */
const SETTLE_MS = 300;

export type ReloadCause = "operator" | "watch";

export interface ReloadRecord {
  cause: ReloadCause;
  /** Wall clock, for the operator only. */
  at: string;
  outcome: ReloadOutcome;
}

export class WorldReloads {
  private readonly host: WorldHost;
  private readonly logger: RuntimeLogger;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly watchers = new Map<string, FSWatcher>();
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private last: ReloadRecord | undefined;
  private lastApplied: ReloadRecord | undefined;

  constructor(host: WorldHost, logger: RuntimeLogger) {
    this.host = host;
    this.logger = logger;
  }

  /** Reloads now, after any reload under way. Never rejects: a failure is a refusal. */
  reload(cause: ReloadCause): Promise<ReloadOutcome> {
    const next = this.queue.then(() => this.once(cause));
    this.queue = next;
    return next;
  }

  private async once(cause: ReloadCause): Promise<ReloadOutcome> {
    let outcome: ReloadOutcome;
    if (this.host.cluster) {
      outcome = {
        status: "refused",
        reason: "cluster",
        message:
          "a cluster room is not reloaded live: its shared log and the other gateways' replicas hold the definition it opened with; restart the gateways on the new files",
      };
    } else {
      const { config } = this.host;
      outcome = await reloadWorld(this.host, {
        worldDir: config.worldDir,
        defaultRoomId: config.defaultRoomId,
        ...(config.tickRate ? { tickRate: config.tickRate } : {}),
      }).catch((error: unknown) => ({
        status: "refused" as const,
        reason: "failed" as const,
        message: describe(error),
      }));
    }
    const record = { cause, at: new Date().toISOString(), outcome };
    if (outcome.status !== "unchanged" || cause === "operator") this.last = record;
    if (outcome.status === "applied") {
      this.lastApplied = record;
      const moved = outcome.moved.map(
        (m) => `${m.entityId} (${m.reason}) to ${m.roomId} (${m.tile.tx}, ${m.tile.ty})`,
      );
      this.logger.info(
        `openclawworld: world reloaded (${cause}) at tick ${outcome.tick}: scene ${outcome.previousSceneHash.slice(0, 12)} -> ${outcome.sceneHash.slice(0, 12)}${moved.length ? `; moved ${moved.join(", ")}` : ""}`,
      );
    } else if (outcome.status === "refused") {
      this.logger.warn(
        `openclawworld: world reload (${cause}) refused, the world runs on unchanged: ${outcome.message}`,
      );
    }
    return outcome;
  }

  /** Watches the world directory: a change reloads once the files settle. Each folder of it is
   * watched on its own, not the tree at once: Node's recursive watch on Linux follows each file, and
   * once a file is replaced by a rename (how editors and scripts save atomically) it saw none of that
   * file's later saves. A folder's watch sees its entries change whatever they are. */
  watch(): void {
    if (this.watchers.size > 0 || this.host.cluster) return;
    this.watchFolders();
  }

  /** Watches every folder of the world directory not watched yet, and lets go of those gone. */
  private watchFolders(): void {
    const root = this.host.config.worldDir;
    let folders: string[];
    try {
      folders = foldersUnder(root);
    } catch (error) {
      this.logger.warn(`openclawworld: cannot watch ${root}: ${describe(error)}`);
      return;
    }
    for (const [folder, watcher] of this.watchers) {
      if (folders.includes(folder)) continue;
      watcher.close();
      this.watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: false }, () => this.changed());
        watcher.on("error", (error) => {
          watcher.close();
          this.watchers.delete(folder);
          if (folder === root) {
            this.logger.warn(`openclawworld: watching ${root} stopped: ${describe(error)}`);
            this.unwatch();
          }
        });
        this.watchers.set(folder, watcher);
      } catch (error) {
        if (folder === root) this.logger.warn(`openclawworld: cannot watch ${root}: ${describe(error)}`);
      }
    }
  }

  private changed(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      // A folder made or removed meanwhile is watched, or let go, from now on.
      this.watchFolders();
      this.reload("watch").catch((error: unknown) =>
        this.logger.warn(`openclawworld: world reload failed: ${describe(error)}`),
      );
    }, SETTLE_MS);
    this.settleTimer.unref();
  }

  unwatch(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** For the operator status. */
  status() {
    return {
      watching: this.watchers.size > 0,
      ...(this.last ? { last: this.last } : {}),
      ...(this.lastApplied && this.lastApplied !== this.last ? { lastApplied: this.lastApplied } : {}),
    };
  }
}

/** A folder and every folder under it (hidden ones left out: an editor's or a tool's). */
function foldersUnder(root: string): string[] {
  const found = [root];
  for (let i = 0; i < found.length; i++) {
    for (const entry of readdirSync(found[i]!, { withFileTypes: true }))
      if (entry.isDirectory() && !entry.name.startsWith(".")) found.push(path.join(found[i]!, entry.name));
  }
  return found;
}
