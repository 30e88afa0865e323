// Preloaded into the API and the worker under `npm run fuzz` (node --import): every host name resolves, without
// asking any DNS server, to HERALD_FUZZ_DNS_ADDRESS. The API gets a public address, so a fuzzer's generated callback
// URLs are judged by Herald's URL rules alone; the worker gets a documentation address its egress guard refuses, so
// no attempt ever connects: nothing leaves the loopback. Plain JavaScript: the worker's threads inherit the flag
// without tsx.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

const OFFLINE_ADDRESS = process.env.HERALD_FUZZ_DNS_ADDRESS ?? '192.0.2.1';

dns.promises.lookup = async (_hostname, options) =>
  options?.all ? [{ address: OFFLINE_ADDRESS, family: 4 }] : { address: OFFLINE_ADDRESS, family: 4 };
// Callback hosts resolve through c-ares (src/net/ares-lookup.ts): A answers the one address, AAAA answers none.
const answer = (records) => (_hostname, options, callback) =>
  process.nextTick(typeof options === 'function' ? options : callback, ...records(options));
dns.Resolver.prototype.resolve4 = answer((options) => [
  null,
  options?.ttl ? [{ address: OFFLINE_ADDRESS, ttl: 60 }] : [OFFLINE_ADDRESS],
]);
dns.Resolver.prototype.resolve6 = answer(() => [Object.assign(new Error('no AAAA'), { code: 'ENODATA' }), []]);
// `import { lookup } from 'node:dns/promises'` binds to the builtin's export: make it see the replacement.
syncBuiltinESMExports();
