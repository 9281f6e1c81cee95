// The contract's version and where it is served: the router, the documents and the answers that
// tell an agent where to call (its join's heartbeat setup) all read it here.
export const AIC_VERSION = "0.1";
export const AIC_BASE_PATH = "/aic/v0.1";
