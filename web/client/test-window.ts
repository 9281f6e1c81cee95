// A small read-only window into the client for tests and curious people: `window.__ocw` (the e2e
// tests read the page through it; see test/support/browser.ts).
import * as Phaser from "phaser";
import type { Connection } from "./net.ts";
import { state } from "./page-state.ts";
import type { WorldScene } from "./scene.ts";
import type { TourPanel } from "./tour-panel.ts";
import { setWorldTime, worldNow } from "./world-clock.ts";

export function openTestWindow(
  game: Phaser.Game,
  scene: WorldScene,
  connection: Connection,
  tourPanel: TourPanel,
  dayClock: { update(): void },
): void {
  (window as unknown as { __ocw: unknown }).__ocw = {
    get status() {
      return state.status;
    },
    get entityId() {
      return state.entityId;
    },
    /** "webgl" or "canvas": what Phaser.AUTO chose in this browser. */
    get renderer() {
      return game.renderer.type === Phaser.WEBGL ? "webgl" : "canvas";
    },
    get roomId() {
      return state.room?.roomId;
    },
    me() {
      return scene.snapshot().find((e) => e.id === state.entityId);
    },
    entities() {
      return scene.snapshot();
    },
    object(id: string) {
      return scene.object(id);
    },
    objects() {
      return scene.objectsShown();
    },
    /** The clock shown, the part of the day, the world's time the page goes by and the tint over
     * the world. */
    daylight() {
      const clock = document.getElementById("clock");
      return {
        clock: clock?.hidden ? undefined : clock?.textContent,
        worldMs: worldNow(),
        part: document.body.dataset.daypart,
        ...scene.daylightState(),
      };
    },
    /** The room's lamps: how many the map has and whether they are lit. */
    lamps() {
      return scene.lampsState();
    },
    /** The page hears the world's time as `worldMs`, as from a welcome: the clock, the tint and the
     * lamps follow it, and the world's next word later than it moves it on. A test brings the night
     * so without waiting for the world's evening. */
    hearWorldTime(worldMs: number) {
      setWorldTime(worldMs);
      dayClock.update();
    },
    roster() {
      return [...state.roster.values()];
    },
    /** The tour panel: its progress line, the guide's latest line, the start button's label. */
    tour() {
      return tourPanel.view;
    },
    chat() {
      return [...state.chat];
    },
    errors() {
      return [...state.errors];
    },
    notices() {
      return [...state.notices];
    },
    bubbles() {
      return scene.bubbleLayout();
    },
    minimap() {
      return scene.minimapState();
    },
    hover() {
      return scene.hoverState();
    },
    hearing() {
      return scene.hearingState();
    },
    places() {
      return scene.placesState();
    },
    name() {
      return state.name;
    },
    tags() {
      return scene.tags();
    },
    tagRects() {
      return scene.tagRects();
    },
    /** Actions sent and not answered yet (their txIds), and how many were sent again after a resume. */
    unanswered() {
      return { txIds: connection.unansweredTxIds(), resent: connection.resent };
    },
    send(message: Record<string, unknown>) {
      return connection.send(message);
    },
    dropConnection() {
      connection.drop();
    },
    /** Frames received so far by kind: text (JSON), binary (actor deltas), snapshots, refused. */
    wireStats() {
      return { ...connection.frames };
    },
    /** Whether the map the page drew blocks tile (tx, ty) (its collision layer). */
    blocked(tx: number, ty: number) {
      return scene.blockedShown(tx, ty);
    },
    screenPoint(tx: number, ty: number) {
      return scene.screenPoint(tx, ty);
    },
    /** A tile's screen point and how far the camera still has to go to rest on whom it follows. */
    settling(tx: number, ty: number) {
      return { point: scene.screenPoint(tx, ty), gap: scene.cameraGap() };
    },
  };
}
