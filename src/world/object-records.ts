// What objects keep about actors (ObjectTypeHandler's records: a tour's progress), kept while an
// actor is away or offline, in snapshots. Bounded per object: the least recently changed record goes
// first, so the order is part of the state (a snapshot keeps it, a restore rebuilds it).
import type { ObjectRecord } from "./objects/object-type.ts";

/** Records kept per object: a person comes back within months, a crowd passes by far sooner. */
export const MAX_RECORDS_PER_OBJECT = 10_000;

export interface RecordEntry {
  objectId: string;
  entityId: string;
  record: ObjectRecord;
}

export class ObjectRecords {
  private readonly byObject = new Map<string, Map<string, ObjectRecord>>();

  get(objectId: string, entityId: string): ObjectRecord | undefined {
    return this.byObject.get(objectId)?.get(entityId);
  }

  set(objectId: string, entityId: string, record: ObjectRecord): void {
    let records = this.byObject.get(objectId);
    if (!records) {
      records = new Map();
      this.byObject.set(objectId, records);
    }
    records.delete(entityId);
    records.set(entityId, { ...record });
    if (records.size > MAX_RECORDS_PER_OBJECT) records.delete(records.keys().next().value!);
  }

  /** An actor's records, by object id. */
  of(entityId: string): { objectId: string; record: ObjectRecord }[] {
    const found: { objectId: string; record: ObjectRecord }[] = [];
    for (const [objectId, records] of this.byObject) {
      const record = records.get(entityId);
      if (record) found.push({ objectId, record });
    }
    return found;
  }

  /** Every record, objects in the order they first kept one, each object's oldest change first. */
  entries(): RecordEntry[] {
    const all: RecordEntry[] = [];
    for (const [objectId, records] of this.byObject)
      for (const [entityId, record] of records) all.push({ objectId, entityId, record });
    return all;
  }

  get size(): number {
    let n = 0;
    for (const records of this.byObject.values()) n += records.size;
    return n;
  }

  restore(entries: readonly RecordEntry[]): void {
    this.byObject.clear();
    for (const e of entries) this.set(e.objectId, e.entityId, e.record);
  }
}
