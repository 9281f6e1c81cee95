// The published documents, generated from the zod schemas (scripts/gen-schemas.ts writes them to
// docs/aic/v0.1; a test fails when the files are stale).
import * as z from "zod";
import { ENDPOINTS, type EndpointName, endpointPath } from "./endpoints.ts";
import { aicRegistry, eventsRegistry, uniqueItemArrays } from "./schemas.ts";
import { AIC_BASE_PATH, AIC_VERSION } from "./version.ts";

export { AIC_BASE_PATH, AIC_VERSION } from "./version.ts";

type JsonObject = Record<string, unknown>;

function defsFrom(registry: typeof aicRegistry, refPrefix: string): Record<string, JsonObject> {
  const generated = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
    uri: (id) => `${refPrefix}${id}`,
    // A bound zod cannot state on a record (a refine) but JSON Schema can: the registry carries it.
    override: (ctx) => {
      const maxProperties = (
        registry.get(ctx.zodSchema as unknown as z.ZodType) as { maxProperties?: number } | undefined
      )?.maxProperties;
      if (maxProperties !== undefined) ctx.jsonSchema.maxProperties = maxProperties;
      if (uniqueItemArrays.has(ctx.zodSchema as unknown as z.ZodType)) ctx.jsonSchema.uniqueItems = true;
    },
  }) as { schemas: Record<string, JsonObject> };
  const defs: Record<string, JsonObject> = {};
  for (const id of Object.keys(generated.schemas).sort()) {
    const { $schema: _s, $id: _i, ...rest } = generated.schemas[id]!;
    defs[id] = rest;
  }
  return defs;
}

/** docs/aic/v0.1/aic-schema.json: requests, responses, the result wrapper (JSON Schema 2020-12). */
export function buildAicSchema(): JsonObject {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://openclawworld.local/schemas/aic/v0.1.json",
    title: "AIC v0.1",
    description: "Generated from src/aic/schemas.ts by scripts/gen-schemas.ts. Do not edit.",
    type: "object",
    additionalProperties: false,
    properties: {},
    $defs: defsFrom(aicRegistry, "#/$defs/"),
  };
}

/** docs/aic/v0.1/events-schema.json: event payloads by type (PRD 6.4). */
export function buildEventsSchema(): JsonObject {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://openclawworld.local/schemas/aic/v0.1.events.json",
    title: "AIC v0.1 Events",
    description: "Event payload schemas for AIC v0.1 event types. Generated; do not edit.",
    type: "object",
    additionalProperties: false,
    $defs: defsFrom(eventsRegistry, "#/$defs/"),
  };
}

const ERROR_RESPONSES: Record<string, string> = {
  "307":
    "Cluster mode (docs/cluster.md): the world is served by another gateway, because this one stands by or the caller went through a portal to a world served elsewhere. Location is the owner's same path and query (a POST stays a POST); the body is the error wrapper, code room_not_ready (retryable), with details.owner and details.location for a client that does not follow redirects",
  "400": "Malformed JSON or schema validation failure (code bad_request)",
  "401": "Missing or unknown bearer token (code unauthorized)",
  "403": "The token may not act for this agentId (code forbidden)",
  "404": "Unknown path (code not_found)",
  "405": "Wrong method for this path (code not_found)",
  "413": "Body larger than 64 KB (code bad_request)",
  "429": "Rate limited (code rate_limited, retryable, details.retryAfterMs; Retry-After header)",
  "500": "Internal error (code internal)",
  "503": "The world service is not running (code room_not_ready, retryable; Retry-After: 1)",
};

function errorResponses(codes: string[]): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  for (const code of codes) {
    const response: JsonObject = {
      description: ERROR_RESPONSES[code],
      content: { "application/json": { schema: { $ref: "#/components/schemas/ResultError" } } },
    };
    if (code === "307") {
      response.headers = {
        Location: { description: "The owning gateway's URL for this request", schema: { type: "string" } },
      };
    }
    if (code === "429") {
      response.headers = {
        "Retry-After": {
          description: "Seconds to wait (ceil of retryAfterMs)",
          schema: { type: "integer", minimum: 1 },
        },
      };
    }
    responses[code] = response;
  }
  return responses;
}

const REQUEST_ID_HEADER = {
  name: "X-Request-Id",
  in: "header",
  required: false,
  description: "Correlation id; echoed in the response (generated when absent).",
  schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
};

/** The 200 answer: `status: ok` with the endpoint's data, or the error wrapper. */
function resultWrapper(responseId: string): JsonObject {
  return {
    oneOf: [
      {
        type: "object",
        additionalProperties: false,
        required: ["status", "data"],
        properties: {
          status: { type: "string", const: "ok" },
          data: { $ref: `#/components/schemas/${responseId}` },
        },
      },
      { $ref: "#/components/schemas/ResultError" },
    ],
  };
}

/** A read also served by GET: its request's fields as query parameters (agentId: the caller's). */
function getOperation(
  name: EndpointName,
  request: JsonObject,
  query: Readonly<Record<string, "string" | "integer">>,
  responseId: string,
): JsonObject {
  const properties = (request.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((request.required ?? []) as string[]);
  return {
    operationId: `${name}ByGet`,
    summary: `${ENDPOINTS[name].summary} (GET: the same read from query parameters)`,
    description:
      "The backwards-compatible read (seed 003, heartbeat_get_still_works): the same answer as POST with the same fields, given as query parameters; `agentId` defaults to the caller's. A parameter not listed (an embedded `action`) is a bad_request: it needs POST.",
    security: [{ bearerAuth: [] }],
    parameters: [
      ...Object.keys(query).map((key) => ({
        name: key,
        in: "query",
        required: key !== "agentId" && required.has(key),
        schema: properties[key] ?? { type: query[key] },
      })),
      REQUEST_ID_HEADER,
    ],
    responses: {
      "200": {
        description: "`status: ok` with data, or `status: error` for a domain error",
        content: {
          "application/json": {
            schema: resultWrapper(responseId),
          },
        },
      },
      ...errorResponses(["307", "400", "401", "403", "404", "405", "429", "500"]),
    },
  };
}

/** docs/aic/v0.1/openapi.json (OpenAPI 3.1). */
export function buildOpenApi(): JsonObject {
  const schemas = defsFrom(aicRegistry, "#/components/schemas/");
  const paths: Record<string, JsonObject> = {};
  for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
    const endpoint = ENDPOINTS[name];
    const requestId = aicRegistry.get(endpoint.request)!.id;
    const responseId = aicRegistry.get(endpoint.response)!.id;
    paths[`${AIC_BASE_PATH}/${endpointPath(name)}`] = {
      post: {
        operationId: name,
        summary: endpoint.summary,
        description: endpoint.description,
        security: [{ bearerAuth: [] }],
        parameters: [REQUEST_ID_HEADER],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${requestId}` } } },
        },
        responses: {
          "200": {
            description: "Processed: `status: ok` with data, or `status: error` for a domain error",
            content: {
              "application/json": {
                schema: resultWrapper(responseId),
              },
            },
          },
          ...errorResponses(["307", "400", "401", "403", "404", "405", "413", "429", "500"]),
        },
      },
      ...(endpoint.kind === "read" && endpoint.query
        ? { get: getOperation(name, schemas[requestId]!, endpoint.query, responseId) }
        : {}),
    };
  }
  paths[`${AIC_BASE_PATH}/events/stream`] = {
    get: {
      operationId: "eventsStream",
      summary: "Server-Sent Events stream of EventEnvelope (PRD 9.3)",
      description:
        "Each `data:` line is one EventEnvelope JSON; `id:` is its cursor. Comment heartbeats every 10 s. Resume with `sinceCursor` or the `Last-Event-ID` header (which wins). An expired cursor or leaving the room sends `event: error` with the error wrapper and closes the stream.",
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: "roomId", in: "query", required: true, schema: { $ref: "#/components/schemas/IdRoom" } },
        { name: "agentId", in: "query", required: true, schema: { $ref: "#/components/schemas/IdAgent" } },
        {
          name: "sinceCursor",
          in: "query",
          required: false,
          schema: { $ref: "#/components/schemas/Cursor" },
        },
        {
          name: "Last-Event-ID",
          in: "header",
          required: false,
          schema: { $ref: "#/components/schemas/Cursor" },
        },
        REQUEST_ID_HEADER,
      ],
      responses: {
        "200": {
          description: "An open event stream",
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        ...errorResponses(["307", "400", "401", "403", "404", "405", "429", "500"]),
      },
    },
  };
  paths[`${AIC_BASE_PATH}/status`] = {
    get: {
      operationId: "status",
      summary: "Liveness for health checks (public; an extension, see DECISIONS.md)",
      security: [],
      parameters: [REQUEST_ID_HEADER],
      responses: {
        "200": {
          description: "The service is running",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["status", "data"],
                properties: {
                  status: { const: "ok" },
                  data: { $ref: "#/components/schemas/AicStatusData" },
                },
              },
            },
          },
        },
        ...errorResponses(["307", "404", "405", "503"]),
      },
    },
  };
  paths[`${AIC_BASE_PATH}/openapi.json`] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      security: [],
      responses: {
        "200": {
          description: "OpenAPI 3.1 document",
          content: { "application/json": { schema: { type: "object" } } },
        },
        ...errorResponses(["307", "404", "405"]),
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "OpenClawWorld Agent Interface Contract",
      version: AIC_VERSION,
      description:
        "AIC v0.1. Every JSON answer is the result wrapper. Domain errors are HTTP 200 with status error; see docs/aic/v0.1/DECISIONS.md for the status mapping.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "Per-agent token" } },
    },
  };
}

/** Serialised exactly as written to disk (stable key order, 2-space indent, trailing newline). */
export function serializeDocument(document: JsonObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
