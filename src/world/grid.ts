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

// Per-node search state, interleaved in one Int32Array (one record per tile) so that visiting a
// node touches one cache line, not six arrays: in big rooms the arrays are megabytes and a search
// that read them separately missed the cache more the bigger the room (same path, slower search).
const G = 0; // cost from the start
const F = 1; // g + heuristic
const H = 2; // heuristic
const FROM = 3; // previous node, -1 at the start
const STAMP = 4; // search generation that initialised this record
const CLOSED = 5; // search generation that closed this node
const STRIDE = 8; // 32 bytes: two records per cache line, never straddling one

/** A binary min-heap of node indices keyed by f, ties by h then index (deterministic). */
class NodeHeap {
  nodes: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.nodes = new Int32Array(capacity);
  }
  private less(a: number, b: number, rec: Int32Array): boolean {
    const fa = rec[a * STRIDE + F]!;
    const fb = rec[b * STRIDE + F]!;
    if (fa !== fb) return fa < fb;
    const ha = rec[a * STRIDE + H]!;
    const hb = rec[b * STRIDE + H]!;
    if (ha !== hb) return ha < hb;
    return a < b;
  }
  push(node: number, rec: Int32Array): void {
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
      if (!this.less(nodes[i]!, nodes[parent]!, rec)) break;
      const tmp = nodes[i]!;
      nodes[i] = nodes[parent]!;
      nodes[parent] = tmp;
      i = parent;
    }
  }
  pop(rec: Int32Array): number {
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
        if (l < this.size && this.less(nodes[l]!, nodes[m]!, rec)) m = l;
        if (r < this.size && this.less(nodes[r]!, nodes[m]!, rec)) m = r;
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
  private readonly rec: Int32Array;
  private generation = 0;
  private readonly heap: NodeHeap;
  constructor(size: number) {
    this.rec = new Int32Array(size * STRIDE);
    this.heap = new NodeHeap(Math.min(size, 1024));
  }

  /** Tile indices from start to goal, both included; undefined when unreachable. */
  find(grid: TileGrid, start: number, goal: number): number[] | undefined {
    const { width, height, blocked } = grid;
    if (blocked[goal]) return undefined;
    if (start === goal) return [start];
    if (this.generation === 0x7fffffff) {
      for (let i = 0; i < this.rec.length; i += STRIDE) {
        this.rec[i + STAMP] = 0;
        this.rec[i + CLOSED] = 0;
      }
      this.generation = 0;
    }
    const gen = ++this.generation;
    const { rec, heap } = this;
    const gx = goal % width;
    const gy = (goal - gx) / width;
    const heuristic = (x: number, y: number): number => {
      const ax = Math.abs(x - gx);
      const ay = Math.abs(y - gy);
      return ax > ay ? DIAGONAL * ay + STRAIGHT * (ax - ay) : DIAGONAL * ax + STRAIGHT * (ay - ax);
    };
    heap.size = 0;
    const sx = start % width;
    const s0 = start * STRIDE;
    rec[s0 + STAMP] = gen;
    rec[s0 + G] = 0;
    rec[s0 + H] = heuristic(sx, (start - sx) / width);
    rec[s0 + F] = rec[s0 + H]!;
    rec[s0 + FROM] = -1;
    heap.push(start, rec);
    while (heap.size > 0) {
      const cur = heap.pop(rec);
      const c0 = cur * STRIDE;
      if (rec[c0 + CLOSED] === gen) continue;
      if (cur === goal) {
        const path: number[] = [];
        for (let n = goal; n !== -1; n = rec[n * STRIDE + FROM]!) path.push(n);
        return path.reverse();
      }
      rec[c0 + CLOSED] = gen;
      const cx = cur % width;
      const cy = (cur - cx) / width;
      for (let d = 0; d < 8; d++) {
        const nx = cx + DX[d]!;
        const ny = cy + DY[d]!;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        const next = ny * width + nx;
        const n0 = next * STRIDE;
        if (blocked[next] || rec[n0 + CLOSED] === gen) continue;
        // No corner cutting: both orthogonal neighbours of a diagonal step must be open.
        if (d >= 4 && (blocked[cy * width + nx] || blocked[ny * width + cx])) continue;
        const cost = rec[c0 + G]! + (d >= 4 ? DIAGONAL : STRAIGHT);
        if (rec[n0 + STAMP] === gen && cost >= rec[n0 + G]!) continue;
        rec[n0 + STAMP] = gen;
        rec[n0 + G] = cost;
        rec[n0 + H] = heuristic(nx, ny);
        rec[n0 + F] = cost + rec[n0 + H]!;
        rec[n0 + FROM] = cur;
        heap.push(next, rec);
      }
    }
    return undefined;
  }
}
