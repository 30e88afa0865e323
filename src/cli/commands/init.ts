import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compressedHexOf, generateP256Key } from '../../crypto/p256.js';
import { HeraldApiError } from '../../client/http.js';
import { adminClient, DEV_KEY_FILE, devDataDir, integratorClient } from '../credentials.js';
import { jsonFlag } from '../flags.js';
import { defineCommand } from '../program.js';
import { printJson } from '../support.js';

/**
 * `herald init`: the integrator a developer needs against a local stack, in one step. Registers an integrator and a
 * fresh P-256 key with the admin API and writes the private key to .data/integrator.pem (0600), where every signed
 * command and `herald listen` find it. A second run keeps a key the API still accepts.
 */
export const initCommand = defineCommand({
  name: 'init',
  summary: 'Development: register an integrator and key with the local stack, key to .data/integrator.pem',
  options: {
    name: { type: 'string', value: 'name', help: 'the integrator\'s name (default "Local development")' },
    out: {
      type: 'string',
      value: 'file',
      help: `where to write the private key (default .data/${DEV_KEY_FILE}; never overwritten while valid)`,
    },
    json: jsonFlag,
  },
  notes: 'Needs the admin token (HERALD_ADMIN_TOKEN, or .data/admin.token that `npm run dev` writes).',
  async action({ values }, io) {
    const out = (values.out as string | undefined) ?? join(devDataDir(io.env), DEV_KEY_FILE);
    if (existsSync(out)) {
      try {
        const credential = await integratorClient({ ...io.env, HERALD_PRIVATE_KEY: undefined }, out).credential();
        if (values.json) printJson(io, { ...credential, keyFile: out, created: false });
        else io.stdout.write(`herald init: ${out} already signs as integrator ${credential.integratorId}\n`);
        return 0;
      } catch (err) {
        if (!(err instanceof HeraldApiError && err.status === 401)) throw err;
        // The key is unknown to this stack (its data was reset): register a new one below.
      }
    }
    const admin = adminClient(io.env);
    const integrator = await admin.createIntegrator((values.name as string | undefined) ?? 'Local development');
    const privateKey = generateP256Key();
    const key = await admin.addKey(integrator.id, `0x${compressedHexOf(privateKey)}`);
    mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
    writeFileSync(out, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
    if (values.json)
      printJson(io, {
        integratorId: integrator.id,
        keyId: key.id,
        publicKey: key.publicKey,
        keyFile: out,
        created: true,
      });
    else io.stdout.write(`herald init: integrator ${integrator.id} with key ${key.id}; private key in ${out}\n`);
    return 0;
  },
});
