// The Agent Interface Contract v0.1: the only door into the world for agents and humans.
export { decodeCursor, encodeCursor, START_CURSOR } from "./cursor.ts";
export { AIC_BASE_PATH, AIC_VERSION, buildAicSchema, buildEventsSchema, buildOpenApi } from "./documents.ts";
export {
  AIC_ERROR_CODES,
  AicError,
  type AicErrorCode,
  type AicErrorObject,
  type AicResult,
  aicError,
  type HttpFraming,
  httpStatusFor,
  isRetryable,
  ok,
} from "./errors.ts";
export { DEFAULT_RATE_CLASSES, type RateClass, type RateLimitConfig, RateLimiter } from "./rate-limit.ts";
export * from "./schemas.ts";
export {
  ActAction,
  type ActActionT,
  type ActData,
  type Actor,
  type AicClock,
  AicService,
  type AicServiceDeps,
  agentEntityId,
  type CallOptions,
  type EventSubscription,
  payloadHash,
  RATE_CLASS,
  txKey,
} from "./service.ts";
