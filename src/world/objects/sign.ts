import type { ObjectTypeHandler } from "./object-type.ts";

export const sign: ObjectTypeHandler = {
  objectType: "sign",
  props: { text: "string" },
  actions: ["read"],
  about: "`read` -> outcome `ok` with the text.",
  initialState: (def) => ({ text: String(def.props.text) }),
  affordances: () => [{ action: "read", label: "Read the sign" }],
  interact: (ctx) => ({ type: "ok", message: String(ctx.state.text) }),
};
