// Interest management: a viewer is told about actors within `enterRadius`, and keeps them until
// they are beyond `exitRadius` (hysteresis, so an actor on the boundary does not flicker in and out).
// Candidates come from the world's spatial grid, so the cost follows the neighbourhood, not the room.

export interface Positioned {
  id: string;
  distance: number;
}

export class InterestSet {
  readonly enterRadius: number;
  readonly exitRadius: number;
  private members = new Set<string>();

  constructor(enterRadius: number, exitRadius: number) {
    if (!(exitRadius >= enterRadius)) throw new Error("exitRadius must be at least enterRadius");
    this.enterRadius = enterRadius;
    this.exitRadius = exitRadius;
  }

  /** `withinExit`: candidates within exitRadius of the viewer (e.g. world.queryRadius). */
  update(withinExit: readonly Positioned[], alwaysInclude?: string): Set<string> {
    const next = new Set<string>();
    for (const c of withinExit) {
      if (
        c.id === alwaysInclude ||
        c.distance <= this.enterRadius ||
        (this.members.has(c.id) && c.distance <= this.exitRadius)
      ) {
        next.add(c.id);
      }
    }
    if (alwaysInclude) next.add(alwaysInclude);
    this.members = next; // the caller only reads the returned set
    return next;
  }

  has(id: string): boolean {
    return this.members.has(id);
  }

  clear(): void {
    this.members.clear();
  }
}
