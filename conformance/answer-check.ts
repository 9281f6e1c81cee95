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

/** Where the PRD says what an answer of `endpoint` is: its section (the wrapper and error object are
 * section 5's, events 6.4's), or that it is this project's extension. */
export function prdSection(endpoint: string): string {
  return isPrd(endpoint)
    ? `PRD 6.3 POST /${endpoint}; wrapper and errors: PRD 5; events: PRD 6.4`
    : "not in the PRD: this project's extension (docs/aic/v0.1)";
}

/** Each line of what is wrong with an answer (wrapper, data, events), each with where in the answer
 * and which schema rule; empty when it is well formed. `prd: false` for a PRD endpoint asked for one
 * of this project's extension fields (observe's `memory`), which the PRD's schema does not have. */
export function answerProblems(endpoint: string, answer: unknown, options: { prd?: boolean } = {}): string[] {
  const def = dataDef(endpoint);
  if (!def) return [`${endpoint}: not an endpoint of the contract`];
  const prd = options.prd ?? isPrd(endpoint);
  return checkAgainst(def, answer, prd ? [GENERATED, PRD] : [GENERATED]);
}

const problemText = (endpoint: string, problems: string[]) =>
  `${endpoint} (${prdSection(endpoint)}): ${problems.join("; ")}`;

/** The problem with an answer, or undefined when it is well formed (see answerProblems). */
export function checkAnswer(
  endpoint: string,
  answer: unknown,
  options: { prd?: boolean } = {},
): string | undefined {
  const problems = answerProblems(endpoint, answer, options);
  return problems.length > 0 ? problemText(endpoint, problems) : undefined;
}

/** The same deviation wherever it shows: array positions are not part of it. */
const deviationKey = (endpoint: string, problem: string) =>
  `${endpoint} ${problem.replace(/\/\d+(?=[/:\s])/g, "/*")}`;

/** How one run judges answers: a deviation from the schemas (one rule broken at one place of one
 * endpoint's answer) fails the first case that meets it, and only that one. A server that adds a
 * field to every observe answer has one fault, reported once; the cases after it are judged on
 * what they check besides (a bound, an error code, a scenario's step). */
export class AnswerJudge {
  /** Deviation -> the first problem line that reported it. */
  private readonly reported = new Set<string>();

  /** What is newly wrong with `answer`, or undefined when nothing is (or it was reported before). */
  check(endpoint: string, answer: unknown, options: { prd?: boolean } = {}): string | undefined {
    const fresh = answerProblems(endpoint, answer, options).filter((p) => {
      const key = deviationKey(endpoint, p);
      if (this.reported.has(key)) return false;
      this.reported.add(key);
      return true;
    });
    return fresh.length > 0 ? problemText(endpoint, fresh) : undefined;
  }
}

/** A tool's `details` (its endpoint's data, as `ok` data) against the same schemas. */
export function checkDetails(endpoint: EndpointName, details: unknown): string | undefined {
  return checkAnswer(endpoint, { status: "ok", data: details });
}
