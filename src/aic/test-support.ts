// Shared by the AIC tests: ajv validators for the generated schema and the PRD's oracle artifacts.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { buildAicSchema, buildEventsSchema } from "./documents.ts";

const SEEDS = fileURLToPath(new URL("../../../shared/seeds/artifacts/", import.meta.url));

export function oracleAicSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${SEEDS}aic-schema.json`, "utf8"));
}
export function oracleEventsSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${SEEDS}events-schema.json`, "utf8"));
}

export type Validate = (def: string, value: unknown) => { valid: boolean; errors: string };

function validatorFor(schema: Record<string, unknown>): Validate {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(schema);
  const id = schema.$id as string;
  return (def, value) => {
    const validate = ajv.getSchema(`${id}#/$defs/${def}`);
    if (!validate) throw new Error(`no $defs/${def} in ${id}`);
    const valid = validate(value) as boolean;
    return { valid, errors: valid ? "" : ajv.errorsText(validate.errors) };
  };
}

export const generatedAic = validatorFor(buildAicSchema());
export const generatedEvents = validatorFor(buildEventsSchema());
export const oracleAic = validatorFor(oracleAicSchema());
export const oracleEvents = validatorFor(oracleEventsSchema());

export const EVENT_DEFS: Record<string, string> = {
  "presence.join": "PresenceJoin",
  "presence.leave": "PresenceLeave",
  "proximity.enter": "ProximityEnter",
  "proximity.exit": "ProximityExit",
  "chat.message": "ChatMessage",
  "object.state_changed": "ObjectStateChanged",
};

/** Validate an AIC response wrapper: the Result wrapper, and `data` against the endpoint's data def;
 * events inside pollEvents data also against their payload defs. Checks generated AND oracle. */
export function checkResponse(
  dataDef: string,
  response: unknown,
  options: { oracle?: boolean } = {},
): string[] {
  const problems: string[] = [];
  const validators: [string, Validate, Validate][] = [["generated", generatedAic, generatedEvents]];
  if (options.oracle !== false) validators.push(["oracle", oracleAic, oracleEvents]);
  for (const [label, aic, events] of validators) {
    const wrapper = aic("Result", response);
    if (!wrapper.valid) problems.push(`${label} Result: ${wrapper.errors}`);
    const r = response as { status?: string; data?: unknown };
    if (r.status === "ok") {
      const data = aic(dataDef, r.data);
      if (!data.valid) problems.push(`${label} ${dataDef}: ${data.errors}`);
      const list = (r.data as { events?: { type: string; payload: unknown }[] }).events;
      for (const event of list ?? []) {
        const def = EVENT_DEFS[event.type];
        const check = def
          ? events(def, event.payload)
          : { valid: false, errors: `unknown type ${event.type}` };
        if (!check.valid) problems.push(`${label} event ${event.type}: ${check.errors}`);
      }
    }
  }
  return problems;
}
