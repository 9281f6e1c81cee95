// Damage to a world's store from outside it, as a disk or a careless hand would do it: a second
// connection to the same SQLite file overwrites a row's body and leaves its checksum or hash as
// recorded, so the store's own checks have something to find.
import { DatabaseSync } from "node:sqlite";

function overwrite(file: string, sql: string, body: string | Uint8Array, key: number): void {
  const db = new DatabaseSync(file);
  try {
    db.prepare(sql).run(body, key);
  } finally {
    db.close();
  }
}

/** A tick log row's body overwritten; its checksum stays. */
export function corruptTick(file: string, tick: number, body: string): void {
  overwrite(file, "UPDATE ticks SET body = ? WHERE tick = ?", body, tick);
}

/** A stored snapshot's body overwritten; its recorded hash stays. */
export function corruptSnapshot(file: string, id: number, body: string | Uint8Array): void {
  overwrite(file, "UPDATE snapshots SET body = ? WHERE id = ?", body, id);
}
