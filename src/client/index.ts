// `openclawworld/client`: what a user's own agent imports (docs/client.md). Built to dist/client.js
// by scripts/build-plugin.ts (LIBRARY_ENTRIES) and named in package.json "exports".
export {
  AicClient,
  AicClientError,
  type AicClientOptions,
  type AicData,
  type AicErrorObject,
  type AicEvent,
  type AicRequest,
  type AicResult,
  type CallOptions,
  type EndpointName,
  type Exchange,
  type RetryPolicy,
} from "./aic-client.ts";
