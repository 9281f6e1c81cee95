// Markers under the replay's timeline. On a long stretch, markers a few ticks apart would be drawn
// over each other and only the top one would take a click, so markers closer than a marker's width
// are drawn as one cluster marker: a click on it opens a small list with a button for each of them.

/** One marker: where it is on the timeline, its label, and data attributes for styling and tests. */
export interface MarkerItem {
  tick: number;
  label: string;
  data: Record<string, string>;
}

/** Markers whose centres are closer than this many pixels share a cluster (a marker is 6 px wide). */
const MIN_APART_PX = 10;

const drawn = new Map<
  HTMLElement,
  { items: MarkerItem[]; from: number; to: number; pick: (tick: number) => void }
>();

/** Draws `items` (in tick order) on `bar` for the stretch from..to; a click on one calls `pick`. */
export function drawMarkers(
  bar: HTMLElement,
  items: MarkerItem[],
  stretch: { from: number; to: number },
  pick: (tick: number) => void,
): void {
  drawn.set(bar, { items, ...stretch, pick });
  bar.replaceChildren();
  const span = Math.max(1, stretch.to - stretch.from);
  const width = bar.clientWidth || 600;
  const at = (tick: number) => (tick - stretch.from) / span;
  let group: MarkerItem[] = [];
  const flush = () => {
    if (group.length === 1) bar.append(markerButton(group[0]!, at(group[0]!.tick), pick));
    else if (group.length > 1) bar.append(...clusterOf(group, at(group[0]!.tick), pick));
    group = [];
  };
  for (const item of items) {
    // Against the group's last marker: any two markers closer than MIN_APART_PX share a cluster.
    if (group.length > 0 && (at(item.tick) - at(group.at(-1)!.tick)) * width >= MIN_APART_PX) flush();
    group.push(item);
  }
  flush();
}

function markerButton(item: MarkerItem, fraction: number, pick: (tick: number) => void): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  Object.assign(button.dataset, item.data, { tick: String(item.tick) });
  button.title = item.label;
  button.style.left = `${fraction * 100}%`;
  button.addEventListener("click", () => pick(item.tick));
  return button;
}

/** A cluster marker and its list (hidden until the marker is clicked; one list open at a time). */
function clusterOf(items: MarkerItem[], fraction: number, pick: (tick: number) => void): HTMLElement[] {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "marker-cluster";
  button.dataset.count = String(items.length);
  button.dataset.ticks = items.map((i) => i.tick).join(" ");
  button.title = `${items.length} markers, ticks ${items[0]!.tick}–${items.at(-1)!.tick}`;
  button.textContent = String(items.length);
  button.style.left = `${fraction * 100}%`;
  const list = document.createElement("div");
  list.className = "marker-cluster-list";
  list.hidden = true;
  list.style.left = `${fraction * 100}%`;
  for (const item of items) {
    const entry = document.createElement("button");
    entry.type = "button";
    Object.assign(entry.dataset, item.data, { tick: String(item.tick) });
    entry.textContent = item.label;
    entry.addEventListener("click", () => {
      list.hidden = true;
      pick(item.tick);
    });
    list.append(entry);
  }
  button.addEventListener("click", () => {
    const opening = list.hidden;
    for (const other of document.querySelectorAll<HTMLElement>(".marker-cluster-list")) other.hidden = true;
    list.hidden = !opening;
  });
  return [button, list];
}

// A resize changes which markers are too close: draw every bar again.
window.addEventListener("resize", () => {
  for (const [bar, { items, from, to, pick }] of drawn) drawMarkers(bar, items, { from, to }, pick);
});
