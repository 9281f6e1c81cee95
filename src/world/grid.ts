// Tile-grid helpers and A* pathfinding (8-way, no corner cutting) with per-room scratch buffers,
// so a search allocates only its result.

export interface TileGrid {
  readonly width: number;
  readonly height: number;
  /** 1 = blocked right now (static collision or a closed door). */
  readonly blocked: Uint8Array;
}

const STRAIGHT = 10;
const DIAGONAL = 14;
const DX = [1, -1, 0, 0, 1, 1, -1, -1];
const DY = [0, 0, 1, -1, 1, -1, 1, -1];

/** A binary min-heap of node indices keyed by f, ties by h then index (deterministic). */
class NodeHeap {
  nodes: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.nodes = new Int32Array(capacity);
  }
  private less(a: number, b: number, f: Int32Array, h: Int32Array): boolean {
    if (f[a] !== f[b]) return f[a]! < f[b]!;
    if (h[a] !== h[b]) return h[a]! < h[b]!;
    return a < b;
  }
  push(node: number, f: Int32Array, h: Int32Array): void {
    if (this.size === this.nodes.length) {
      const bigger = new Int32Array(this.nodes.length * 2);
      bigger.set(this.nodes);
      this.nodes = bigger;
    }
    let i = this.size++;
    const nodes = this.nodes;
    nodes[i] = node;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(nodes[i]!, nodes[parent]!, f, h)) break;
      const tmp = nodes[i]!;
      nodes[i] = nodes[parent]!;
      nodes[parent] = tmp;
      i = parent;
    }
  }
  pop(f: Int32Array, h: Int32Array): number {
    const nodes = this.nodes;
    const top = nodes[0]!;
    const last = nodes[--this.size]!;
    if (this.size > 0) {
      nodes[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.size && this.less(nodes[l]!, nodes[m]!, f, h)) m = l;
        if (r < this.size && this.less(nodes[r]!, nodes[m]!, f, h)) m = r;
        if (m === i) break;
        const tmp = nodes[i]!;
        nodes[i] = nodes[m]!;
        nodes[m] = tmp;
        i = m;
      }
    }
    return top;
  }
}

export class PathFinder {
  private readonly g: Int32Array;
  private readonly f: Int32Array;
  private readonly h: Int32Array;
  private readonly from: Int32Array;
  private readonly stamp: Uint32Array;
  private readonly closed: Uint32Array;
  private generation = 0;
  private readonly heap: NodeHeap;
  constructor(size: number) {
    this.g = new Int32Array(size);
    this.f = new Int32Array(size);
    this.h = new Int32Array(size);
    this.from = new Int32Array(size);
    this.stamp = new Uint32Array(size);
    this.closed = new Uint32Array(size);
    this.heap = new NodeHeap(Math.min(size, 1024));
  }

  /** Tile indices from start to goal, both included; undefined when unreachable. */
  find(grid: TileGrid, start: number, goal: number): number[] | undefined {
    const { width, height, blocked } = grid;
    if (blocked[goal]) return undefined;
    if (start === goal) return [start];
    this.generation = (this.generation + 1) >>> 0;
    if (this.generation === 0) {
      this.stamp.fill(0);
      this.closed.fill(0);
      this.generation = 1;
    }
    const gen = this.generation;
    const { g, f, h, from, stamp, closed, heap } = this;
    const gx = goal % width;
    const gy = (goal - gx) / width;
    const heuristic = (x: number, y: number): number => {
      const ax = Math.abs(x - gx);
      const ay = Math.abs(y - gy);
      return ax > ay ? DIAGONAL * ay + STRAIGHT * (ax - ay) : DIAGONAL * ax + STRAIGHT * (ay - ax);
    };
    heap.size = 0;
    const sx = start % width;
    stamp[start] = gen;
    g[start] = 0;
    h[start] = heuristic(sx, (start - sx) / width);
    f[start] = h[start]!;
    from[start] = -1;
    heap.push(start, f, h);
    while (heap.size > 0) {
      const cur = heap.pop(f, h);
      if (closed[cur] === gen) continue;
      if (cur === goal) {
        const path: number[] = [];
        for (let n = goal; n !== -1; n = from[n]!) path.push(n);
        return path.reverse();
      }
      closed[cur] = gen;
      const cx = cur % width;
      const cy = (cur - cx) / width;
      for (let d = 0; d < 8; d++) {
        const nx = cx + DX[d]!;
        const ny = cy + DY[d]!;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        const next = ny * width + nx;
        if (blocked[next] || closed[next] === gen) continue;
        // No corner cutting: both orthogonal neighbours of a diagonal step must be open.
        if (d >= 4 && (blocked[cy * width + nx] || blocked[ny * width + cx])) continue;
        const cost = g[cur]! + (d >= 4 ? DIAGONAL : STRAIGHT);
        if (stamp[next] === gen && cost >= g[next]!) continue;
        stamp[next] = gen;
        g[next] = cost;
        h[next] = heuristic(nx, ny);
        f[next] = cost + h[next]!;
        from[next] = cur;
        heap.push(next, f, h);
      }
    }
    return undefined;
  }
}
