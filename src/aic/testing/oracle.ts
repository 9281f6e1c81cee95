// The PRD's own JSON Schemas (the oracle for every AIC bound and shape, and what the conformance
// suite holds any server to: conformance/answer-check.ts), kept in the repo
// as fixtures so a checkout runs on its own, and a response check against generated AND oracle.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkAnswer, GENERATED, validatorFor } from "../schema-check.ts";

const ORACLE_DIR = fileURLToPath(new URL("../fixtures/prd-oracle/", import.meta.url));

export function oracleAicSchema(): { $defs: Record<string, unknown> } & Record<string, unknown> {
  return JSON.parse(readFileSync(`${ORACLE_DIR}aic-schema.json`, "utf8"));
}
export function oracleEventsSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${ORACLE_DIR}events-schema.json`, "utf8"));
}

export const oracleAic = validatorFor(oracleAicSchema());
export const oracleEvents = validatorFor(oracleEventsSchema());

/** Validate an AIC response against the generated schema and (unless `oracle: false`) the PRD's. */
export function checkResponse(
  dataDef: string,
  response: unknown,
  options: { oracle?: boolean } = {},
): string[] {
  return checkAnswer(
    dataDef,
    response,
    options.oracle === false ? [GENERATED] : [GENERATED, ["oracle", oracleAic, oracleEvents]],
  );
}
