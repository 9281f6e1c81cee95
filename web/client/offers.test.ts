// The page's action controls, built from offers alone (no kind named in the page): a plain button
// sends its kind, a menu sends the picked value of its field, a key does what its button does.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OfferedAction } from "../../src/world/actions/offer.ts";
import { mountOffers } from "./offers.ts";

/** An element as far as offers.ts uses one. */
class FakeElement {
  id = "";
  className = "";
  title = "";
  textContent = "";
  type = "";
  hidden = false;
  focused = false;
  readonly dataset: Record<string, string> = {};
  readonly attributes = new Map<string, string>();
  readonly children: FakeElement[] = [];
  private readonly clicks: (() => void)[] = [];
  readonly tag: string;
  constructor(tag: string) {
    this.tag = tag;
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  append(...elements: FakeElement[]): void {
    this.children.push(...elements);
  }
  addEventListener(_type: "click", listener: () => void): void {
    this.clicks.push(listener);
  }
  click(): void {
    for (const listener of this.clicks) listener();
  }
  querySelector(tag: string): FakeElement | undefined {
    return this.children.find((c) => c.tag === tag);
  }
  focus(): void {
    this.focused = true;
  }
}

const OFFERS: OfferedAction[] = [
  {
    kind: "emote",
    icon: "☺",
    label: "Gesture",
    key: "g",
    choices: { field: "emote", labels: { wave: "waves", nod: "nods" } },
  },
  { kind: "bow", icon: "^", label: "Bow" },
];

let form: FakeElement;
let sent: Record<string, unknown>[];
let connected: boolean;
const notSent = vi.fn();

beforeEach(() => {
  vi.stubGlobal("document", { createElement: (tag: string) => new FakeElement(tag) });
  form = new FakeElement("form");
  sent = [];
  connected = true;
  notSent.mockClear();
});
afterEach(() => vi.unstubAllGlobals());

function mount() {
  return mountOffers(form as unknown as HTMLElement, OFFERS, {
    send: (action) => connected && sent.push(action) > 0,
    notSent,
    releaseKeys: () => {},
  });
}
const byId = (id: string) => form.children.find((c) => c.id === id)!;

describe("the page's action controls (offers.ts)", () => {
  it("a menu per offer with choices, a button per offer without, in the registry's order", () => {
    mount();
    expect(form.children.map((c) => c.id)).toEqual(["emote-toggle", "emote-menu", "bow-button"]);
    expect(byId("emote-toggle").title).toBe("Gesture (G)");
    expect(byId("emote-menu").children.map((c) => [c.dataset.emote, c.textContent])).toEqual([
      ["wave", "waves"],
      ["nod", "nods"],
    ]);
  });

  it("the toggle and the key open the menu; a pick sends the field's value and closes it", () => {
    const controls = mount();
    const menu = byId("emote-menu");
    expect(menu.hidden).toBe(true);
    byId("emote-toggle").click();
    expect(menu.hidden).toBe(false);
    expect(menu.children[0]!.focused).toBe(true);
    menu.children[1]!.click();
    expect(sent).toEqual([{ kind: "emote", emote: "nod" }]);
    expect(menu.hidden).toBe(true);
    expect(controls.pressKey("G")).toBe(true);
    expect(menu.hidden).toBe(false);
    controls.closeMenus();
    expect(menu.hidden).toBe(true);
    expect(controls.pressKey("x")).toBe(false);
  });

  it("a plain button sends its kind; not connected, the person is told by the offer's label", () => {
    mount();
    byId("bow-button").click();
    expect(sent).toEqual([{ kind: "bow" }]);
    connected = false;
    byId("bow-button").click();
    expect(notSent).toHaveBeenCalledWith("Bow");
  });
});
