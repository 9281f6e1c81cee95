// A request field of the contract as JSON Schema (draft-07), for a door that states its parameters
// in JSON Schema (the ocw_* tools): the type, bounds, pattern and enum are the contract's, so a tool
// never restates one. Defaults are left out (a door says its own, and some model providers reject
// the keyword); the description is the door's when it gives one.
import * as z from "zod";

export type JsonSchema = Record<string, unknown>;

export function fieldSchema(field: z.ZodType, description?: string): JsonSchema {
  const generated = z.toJSONSchema(field, { target: "draft-07", io: "input" }) as JsonSchema;
  const { $schema: _schema, default: _default, description: own, ...schema } = generated;
  const said = description ?? own;
  return said === undefined ? schema : { ...schema, description: said };
}
