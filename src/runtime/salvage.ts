// Reading what is still readable of a store that failed to open or its check: the rows of
// the tick log, the snapshots and the side tables, from a copy of the damaged file (the original is
// kept aside untouched). A damaged first page (the 100-byte header: magic, page size, counters) makes
// SQLite refuse the whole file although every table behind it is intact, so when the file will not
// open as it is, its header is rebuilt from what a store of ours always has (UTF-8, schema format 4,
// WAL mode when a WAL is beside it) and the page sizes SQLite allows are tried in turn. A table that
// fails half-way gives the rows read before the failure.
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { StoredSnapshot, TickRow } from "./store.ts";

export interface SalvagedStore {
  /** How the file was read: as it was, or with a rebuilt header; undefined: not at all. */
  readAs: "as-is" | "rebuilt-header" | undefined;
  autoSnapshots: Omit<StoredSnapshot, "id">[];
  checkpoints: Omit<StoredSnapshot, "id">[];
  ticks: TickRow[];
  side: { scope: string; key: string; value: string }[];
  meta: { key: string; value: string }[];
  /** Run records (operator.ts), as their rows. */
  runs: Record<string, unknown>[];
  /** What could not be read, in plain words. */
  problems: string[];
}

const PAGE_SIZES = [4096, 1024, 2048, 8192, 16384, 32768, 65536];

/** Everything readable of `file` (and its WAL). Never throws. */
export function salvageStore(file: string): SalvagedStore {
  const work = mkdtempSync(path.join(os.tmpdir(), "ocw-salvage-"));
  try {
    const copy = path.join(work, "world.db");
    copyFileSync(file, copy);
    const hasWal = existsSync(`${file}-wal`);
    if (hasWal) copyFileSync(`${file}-wal`, `${copy}-wal`);
    const asIs = readTables(copy);
    if (asIs) return { readAs: "as-is", ...asIs };
    for (const pageSize of pageSizesToTry(`${file}-wal`, hasWal)) {
      copyFileSync(file, copy);
      if (hasWal) copyFileSync(`${file}-wal`, `${copy}-wal`);
      rmSync(`${copy}-shm`, { force: true });
      rebuildHeader(copy, pageSize, hasWal);
      const rebuilt = readTables(copy);
      if (rebuilt) return { readAs: "rebuilt-header", ...rebuilt };
    }
    return { readAs: undefined, ...empty(), problems: ["nothing of it could be read"] };
  } catch (error) {
    return { readAs: undefined, ...empty(), problems: [`it could not be read: ${(error as Error).message}`] };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function empty() {
  return { autoSnapshots: [], checkpoints: [], ticks: [], side: [], meta: [], runs: [] };
}

/** The WAL's own header names the page size (bytes 8-11); otherwise SQLite's default comes first. */
function pageSizesToTry(wal: string, hasWal: boolean): number[] {
  if (!hasWal) return PAGE_SIZES;
  const head = Buffer.alloc(12);
  const fd = openSync(wal, "r");
  try {
    readSync(fd, head, 0, 12, 0);
  } finally {
    closeSync(fd);
  }
  const fromWal = head.readUInt32BE(8);
  return PAGE_SIZES.includes(fromWal) ? [fromWal, ...PAGE_SIZES.filter((s) => s !== fromWal)] : PAGE_SIZES;
}

function rebuildHeader(file: string, pageSize: number, wal: boolean): void {
  const header = Buffer.alloc(100);
  header.write("SQLite format 3\u0000", 0, "latin1");
  header.writeUInt16BE(pageSize === 65536 ? 1 : pageSize, 16);
  header[18] = wal ? 2 : 1; // file format write / read version: 2 = WAL
  header[19] = wal ? 2 : 1;
  header[20] = 0; // reserved bytes per page
  header[21] = 64; // max embedded payload fraction (fixed)
  header[22] = 32; // min embedded payload fraction (fixed)
  header[23] = 32; // leaf payload fraction (fixed)
  header.writeUInt32BE(1, 24); // change counter
  // Database size in pages: a size that disagrees with "version valid for" (below) makes SQLite use
  // the file's own size, which is what a rebuilt header wants.
  header.writeUInt32BE(0, 28);
  header.writeUInt32BE(1, 40); // schema cookie
  header.writeUInt32BE(4, 44); // schema format
  header.writeUInt32BE(1, 56); // text encoding: UTF-8
  header.writeUInt32BE(0, 92); // version valid for (differs from the change counter on purpose)
  header.writeUInt32BE(3_045_000, 96);
  const fd = openSync(file, "r+");
  try {
    if (statSync(file).size < 100) throw new Error("shorter than a database header");
    writeSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
}

type Tables = Omit<SalvagedStore, "readAs">;

/** The tables of a database file, or undefined when it does not open as a store of ours. */
function readTables(file: string): Tables | undefined {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file);
  } catch {
    return undefined;
  }
  try {
    const names = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (row) => row.name,
      ),
    );
    if (!names.has("ticks") && !names.has("snapshots")) return undefined;
    const problems: string[] = [];
    const rows = <T>(table: string, sql: string): T[] => {
      if (!names.has(table)) return [];
      const out: T[] = [];
      try {
        for (const row of db.prepare(sql).iterate()) out.push(row as T);
      } catch (error) {
        problems.push(`table ${table}: read ${out.length} rows, then ${(error as Error).message}`);
      }
      return out;
    };
    const snapshotColumns = "kind, label, tick, time, format, hash, saved_at AS savedAt, body";
    const snapshots = rows<Omit<StoredSnapshot, "id">>(
      "snapshots",
      `SELECT ${snapshotColumns} FROM snapshots ORDER BY id`,
    );
    return {
      autoSnapshots: snapshots.filter((s) => s.kind === "auto"),
      checkpoints: snapshots.filter((s) => s.kind === "checkpoint"),
      ticks: rows<TickRow>("ticks", "SELECT tick, body, checksum FROM ticks ORDER BY tick"),
      side: rows("sessions", "SELECT scope, key, value FROM sessions"),
      meta: rows("meta", "SELECT key, value FROM meta"),
      runs: rows("runs", "SELECT * FROM runs ORDER BY id"),
      problems,
    };
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}
