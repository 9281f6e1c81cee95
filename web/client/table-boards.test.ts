import { describe, expect, it } from "vitest";
import type { WireObject } from "../../src/http/humans/protocol.ts";
import { tablesShown } from "./table-boards.ts";

const plain = (s: string) => s.replace(/[\u2066-\u2069]/g, "");
const object = (o: Partial<WireObject> & Pick<WireObject, "id" | "objectType" | "name">): WireObject => ({
  tx: 0,
  ty: 0,
  state: {},
  version: 1,
  affords: [],
  ...o,
});

describe("the game tables beside the replay's and the follow page's map", () => {
  it("are the room's tables as someone watching sees them: the board, whose move, no column to play", () => {
    const table = object({
      id: "obj_cafe_game_table",
      objectType: "game_table",
      name: "cafe_game_table",
      version: 4,
      state: {
        red: "hum_mara",
        yellow: "agt_bob",
        redName: "Mara",
        yellowName: "Bob",
        cells: `${".".repeat(28)}...Y......RR..`,
        moves: 3,
        turn: "Y",
        result: "",
        last: 4,
      },
    });
    const sign = object({ id: "obj_sign_cafe", objectType: "sign", name: "sign_cafe" });
    const [shown, ...more] = tablesShown([sign, table]);
    expect(more).toEqual([]);
    expect(shown!.id).toBe("obj_cafe_game_table");
    expect(shown!.name).toBe("cafe game table");
    expect(shown!.view.rows.map((r) => r.join("")).join("/")).toBe(
      "......./......./......./......./...Y.../...RR..",
    );
    expect(plain(shown!.view.status)).toBe("Bob (Y) to play.");
    expect(shown!.view.playable).toEqual(Array(7).fill(false));
    expect(shown!.last).toBe(4);
  });

  it("a finished game says who won; a room without a table shows none", () => {
    const won = object({
      id: "obj_t",
      objectType: "game_table",
      name: "t",
      state: { red: "a", yellow: "b", redName: "Ann", yellowName: "Bo", result: "R", moves: 7, cells: "" },
    });
    expect(plain(tablesShown([won])[0]!.view.status)).toBe("Ann (R) won in 7 moves.");
    expect(tablesShown([object({ id: "obj_s", objectType: "sign", name: "s" })])).toEqual([]);
  });
});
