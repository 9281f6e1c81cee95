// What every answer the suite receives is held to: the result wrapper and its endpoint's data schema,
// both as this project generates them (docs/aic/v0.1) and, for the PRD's six endpoints, as the PRD's
// own schema artifacts have them (the repo's copies in src/aic/fixtures/prd-oracle): a field that our
// schema allows but the PRD's does not is a failure against any server. Events inside an answer are
// checked against their payload schemas the same way. Tools' `details` are their endpoint's data.
import type * as z from "zod";
import { ENDPOINTS, type EndpointName } from "../src/aic/endpoints.ts";
import { checkAnswer as checkAgainst, GENERATED, type SchemaPair } from "../src/aic/schema-check.ts";
import { aicRegistry } from "../src/aic/schemas.ts";
import { oracleAic, oracleEvents } from "../src/aic/testing/oracle.ts";
import { PRD_ENDPOINTS } from "./capabilities.ts";

const PRD: SchemaPair = ["PRD", oracleAic, oracleEvents];

/** The `$defs` name of an endpoint's answer data, from the contract's own table. */
export function dataDef(endpoint: string): string | undefined {
  const row = (ENDPOINTS as Record<string, { response: z.ZodType } | undefined>)[endpoint];
  return row ? aicRegistry.get(row.response)?.id : undefined;
}

const isPrd = (endpoint: string) => (PRD_ENDPOINTS as readonly string[]).includes(endpoint);

/** The problem with an answer (wrapper, data, events), or undefined when it is well formed.
 * `prd: false` for a PRD endpoint asked for one of this project's extension fields (observe's
 * `memory`), which the PRD's schema does not have. */
export function checkAnswer(
  endpoint: string,
  answer: unknown,
  options: { prd?: boolean } = {},
): string | undefined {
  const def = dataDef(endpoint);
  if (!def) return `${endpoint}: not an endpoint of the contract`;
  const prd = options.prd ?? isPrd(endpoint);
  const problems = checkAgainst(def, answer, prd ? [GENERATED, PRD] : [GENERATED]);
  return problems.length > 0 ? `${endpoint}: ${problems.join("; ")}` : undefined;
}

/** A tool's `details` (its endpoint's data, as `ok` data) against the same schemas. */
export function checkDetails(endpoint: EndpointName, details: unknown): string | undefined {
  return checkAnswer(endpoint, { status: "ok", data: details });
}
