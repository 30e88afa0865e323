// What the embedded MongoDB-wire server (FerretDB 1.24 on SQLite, tools/mongo-wire) serves well, as the numbers the
// store keeps to. It answers from its `_id` index a bare `_id` equality and, with the launcher's patch, an `_id` `$in`
// of string ids; every other filter, and every sort, it evaluates in Go over the whole collection, and every update
// rewrites the whole document (docs/events.md, "Page documents"). So the hot and listing paths address documents by
// `_id` (test/integration/round-trips.test.ts checks the shapes), and the numbers below bound what one command
// carries. A real MongoDB has none of these limits; keeping to them there costs nothing.

/**
 * The most `_id`s one find names: the server pushes `{_id: {$in: […]}}` down to its `_id` index for at most 1,000
 * string or ObjectId values (tools/mongo-wire/ferretdb-id-in.patch) and scans the whole collection beyond that.
 */
export const MAX_IDS_PER_FIND = 1000;

/**
 * The most candidate rows a deliveries listing reads in one round (src/store/listing/deliveries-pages.ts): under
 * MAX_IDS_PER_FIND, so that a round reads its deliveries in one find.
 */
export const MAX_CANDIDATES_PER_ROUND = 800;

/**
 * Heads upserted per command when rows are filed in bulk (seeding, benchmarks): FerretDB 1.24 was seen to stall,
 * idle, on one `update` of a few thousand upserts that found some heads existing (bench seeding's second batch).
 */
export const HEAD_UPSERTS_PER_WRITE = 100;

/**
 * The most `_id`s one background write (the retention purge's deletes, the listing's leases) names. The embedded
 * server keeps every collection of a database in one SQLite file, which takes one write transaction at a time: a live
 * write waits for the whole statement in SQLite's busy handler, whose sleeps grow to 100 ms. A statement of 100
 * deletes (with their index entries) made the live first attempts' p99 during a purge 5.9 × alone, of 25 3.0 ×, of 10
 * 2.1 × (`npm run bench -- purge`, docs/benchmarks.md).
 */
export const BACKGROUND_IDS_PER_WRITE = 10;

/**
 * Expired documents deleted per command (src/store/expiring-repo.ts): the server deletes a filter's matches in one
 * SQL statement with one variable each, and fails past SQLite's 32,766 variables per statement.
 */
export const EXPIRED_DELETES_PER_COMMAND = 5_000;

/**
 * Hot-path commands of one kind a process keeps in flight (src/store/coalesce.ts): calls beyond them wait and leave
 * together in the next command. The embedded server runs one collection's writes one at a time anyway, so a second
 * command in flight is enough to keep it busy; a real MongoDB gets the same batches.
 */
export const HOT_COMMANDS_IN_FLIGHT = 2;

/** Documents one coalesced insert carries at most. */
export const INSERTS_PER_COMMAND = 500;
