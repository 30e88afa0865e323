// Preloaded into the API under `npm run fuzz` (node --import): every host name resolves, without asking any DNS
// server, to one public documentation address, so a fuzzer's generated callback URLs cost no traffic beyond the
// loopback and are judged by Herald's URL rules alone. Nothing connects to it: the fuzz bed runs no worker.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

export const OFFLINE_ADDRESS = '93.184.215.14';

dns.promises.lookup = (async (_hostname: string, options?: { all?: boolean }) =>
  options?.all ? [{ address: OFFLINE_ADDRESS, family: 4 }] : { address: OFFLINE_ADDRESS, family: 4 }) as never;
// `import { lookup } from 'node:dns/promises'` binds to the builtin's export: make it see the replacement.
syncBuiltinESMExports();
