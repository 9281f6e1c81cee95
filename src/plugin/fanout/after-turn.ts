/** Items gathered during one turn of the event loop, handed over in one call once that turn is over
 * (`setImmediate`): a tick's messages and an input batch's answers each become one write to the child,
 * made after the tick, not inside it. */
export interface TurnBatch<T> {
  push(item: T): void;
  /** Forgets what is gathered and not yet handed over (a child that died, a surface closing). */
  drop(): void;
}

export function batchAfterTurn<T>(flush: (items: T[]) => void): TurnBatch<T> {
  let items: T[] = [];
  let pending: ReturnType<typeof setImmediate> | undefined;
  return {
    push(item) {
      items.push(item);
      pending ??= setImmediate(() => {
        pending = undefined;
        const batch = items;
        items = [];
        flush(batch);
      });
    },
    drop() {
      if (pending) clearImmediate(pending);
      pending = undefined;
      items = [];
    },
  };
}
