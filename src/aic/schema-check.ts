// Checks an AIC answer against a JSON Schema of the contract: the one this server generates from its
// zod schemas (what the conformance CLI checks any server against) or, in tests, the PRD's own.
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { buildAicSchema, buildEventsSchema } from "./documents.ts";

export type Validate = (
  def: string,
  value: unknown,
) => { valid: boolean; errors: string; problems: string[] };

/** One schema violation as a reader needs it: where in the value, what, and which rule of the
 * schema (its path) said so. */
function violation(error: ErrorObject): string {
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  return `at ${error.instancePath || "/"}: ${error.message ?? error.keyword}${extra ? ` (${extra})` : ""} [schema ${error.schemaPath}]`;
}

/** A validator for the `$defs` of one schema document. */
export function validatorFor(schema: Record<string, unknown>): Validate {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(schema);
  const id = schema.$id as string;
  return (def, value) => {
    const validate = ajv.getSchema(`${id}#/$defs/${def}`);
    if (!validate) throw new Error(`no $defs/${def} in ${id}`);
    const valid = validate(value) as boolean;
    const errors = valid ? [] : (validate.errors ?? []);
    return { valid, errors: valid ? "" : ajv.errorsText(errors), problems: errors.map(violation) };
  };
}

export const generatedAic = validatorFor(buildAicSchema());
export const generatedEvents = validatorFor(buildEventsSchema());

export const EVENT_DEFS: Record<string, string> = {
  "presence.join": "PresenceJoin",
  "presence.leave": "PresenceLeave",
  "proximity.enter": "ProximityEnter",
  "proximity.exit": "ProximityExit",
  "chat.message": "ChatMessage",
  "object.state_changed": "ObjectStateChanged",
};

/** A named pair of validators: the AIC schema and the events schema. */
export type SchemaPair = [label: string, aic: Validate, events: Validate];

export const GENERATED: SchemaPair = ["generated", generatedAic, generatedEvents];

/** Validate an AIC response wrapper: the Result wrapper, and `data` against the endpoint's data def;
 * events inside pollEvents data also against their payload defs. One problem line per failure. */
export function checkAnswer(
  dataDef: string,
  response: unknown,
  schemas: SchemaPair[] = [GENERATED],
): string[] {
  const problems: string[] = [];
  for (const [label, aic, events] of schemas) {
    const wrapper = aic("Result", response);
    for (const p of wrapper.problems) problems.push(`${label} Result ${p}`);
    const r = response as { status?: string; data?: unknown };
    if (r.status === "ok") {
      const data = aic(dataDef, r.data);
      for (const p of data.problems) problems.push(`${label} ${dataDef} ${p}`);
      const list = (r.data as { events?: unknown } | null)?.events;
      for (const event of Array.isArray(list) ? (list as { type?: unknown; payload?: unknown }[]) : []) {
        const def = EVENT_DEFS[String(event?.type)];
        if (!def) {
          problems.push(`${label} event ${String(event?.type)}: not an event type of the schema`);
          continue;
        }
        for (const p of events(def, event.payload).problems)
          problems.push(`${label} event ${event.type} ${p}`);
      }
    }
  }
  return problems;
}
