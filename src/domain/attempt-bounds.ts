// How long one delivery attempt may take, in one place: the HTTP client's own bounds, the activity's timeouts that
// match them (workflows/delivery.ts) and the worker's shutdown grace (src/temporal/herald-worker.ts). Pure constants,
// so the workflow bundle may import them. Why these figures: docs/scale-and-size.md, "Sizing the worker".

/** TCP + TLS connect to the receiver. */
export const HTTP_CONNECT_TIMEOUT_MS = 5_000;
/** Wait for the response headers, and each gap in the (bounded) body. The whole POST ends by connect + response. */
export const HTTP_RESPONSE_TIMEOUT_MS = 10_000;
/** The POST's hard deadline. */
export const HTTP_POST_BOUND_MS = HTTP_CONNECT_TIMEOUT_MS + HTTP_RESPONSE_TIMEOUT_MS;
/** The database steps around the POST: reads before it, the record after it (retried inside this budget). */
export const ATTEMPT_STORE_BUDGET_MS = 10_000;
/** The activity's startToCloseTimeout: everything one attempt does, plus a margin for a loaded event loop. */
export const ATTEMPT_START_TO_CLOSE_MS = HTTP_POST_BOUND_MS + ATTEMPT_STORE_BUDGET_MS + 5_000;
/** A running attempt heartbeats this often (the first after this long, so a quick attempt sends none). */
export const ATTEMPT_HEARTBEAT_EVERY_MS = 2_000;
/** An attempt silent this long is presumed lost with its worker and retried (the activity's heartbeatTimeout). */
export const ATTEMPT_HEARTBEAT_TIMEOUT_MS = 10_000;
/** How long the worker may hold back a heartbeat (below the timeout, with room for a slow round trip). */
export const ATTEMPT_HEARTBEAT_THROTTLE_MS = 3_000;

// What one attempt may add to the database, so that no number of attempts outgrows a delivery's document
// (docs/deliveries.md, "Bounds of a delivery's record").
/** Bytes of the receiver's body read and kept in the attempt's response summary. */
export const RESPONSE_BODY_MAX_BYTES = 1024;
/** Bytes kept of each allow-listed response header's value. */
export const RESPONSE_HEADER_MAX_BYTES = 256;
/** The latest attempts kept inside the delivery's document; older ones move to the `attempts` collection. */
export const ATTEMPTS_IN_DELIVERY = 8;
/** POSTs an attempt may repeat after a try that did not record it; then the delivery fails `recording_failed`. */
export const REPEAT_POSTS_MAX = 3;
