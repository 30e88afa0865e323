#!/usr/bin/env bash
# Runs a command on Node 24 (.tools/node24, fetched by `scripts/tools.sh --node24`): its bin/ goes first on PATH, so
# the command and every node process it starts run on it, whether started by `process.execPath` (the test runner's
# files, the API and worker the tests and benchmarks spawn) or found on PATH (`#!/usr/bin/env node`: npm, npx,
# bin/herald.mjs). `npm run test:node24` is `scripts/with-node24.sh node --import tsx scripts/test.ts`; any other
# command works the same way: `bash scripts/with-node24.sh npm run bench -- delivery`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || { echo "usage: scripts/with-node24.sh COMMAND [ARGS…]" >&2; exit 2; }
bash "$root/scripts/tools.sh" --node24
export PATH="$root/.tools/node24/bin:$PATH"
# Set by an outer npm (`npm run test:node24`) to the Node it runs on; the Node of whatever runs now is this one.
export NODE="$root/.tools/node24/bin/node" npm_node_execpath="$root/.tools/node24/bin/node"
# The Node major test/unit/node-version.test.ts expects of every test process (scripts/test.ts sets its own otherwise).
export HERALD_TEST_NODE_MAJOR=24
exec "$@"
