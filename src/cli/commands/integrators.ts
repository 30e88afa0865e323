import { adminClient } from '../credentials.js';
import { defineCommand } from '../program.js';
import { printJson } from '../support.js';

export const integratorsCreateCommand = defineCommand({
  name: 'integrators create',
  summary: 'Register an integrator (POST /internal/v1/integrators)',
  args: ['<name>'],
  notes: 'Quote a name with spaces: herald integrators create "Acme Payments"',
  async action({ positionals }, io) {
    printJson(io, await adminClient(io.env).createIntegrator(positionals[0]!));
    return 0;
  },
});

export const integratorsGetCommand = defineCommand({
  name: 'integrators get',
  summary: 'Show an integrator with its keys (GET /internal/v1/integrators/{id})',
  args: ['<integratorId>'],
  async action({ positionals }, io) {
    printJson(io, await adminClient(io.env).getIntegrator(positionals[0]!));
    return 0;
  },
});

export const integratorsEraseCommand = defineCommand({
  name: 'integrators erase',
  summary:
    'Erase an integrator and everything it has: a job (DELETE /internal/v1/integrators/{id}); --wait polls it to the end',
  args: ['<integratorId>'],
  options: { wait: { type: 'boolean', help: 'poll the job every 2 s until it ends; exit 1 if it failed' } },
  notes: 'Irreversible. What is erased and what stays: docs/retention.md, "Erasure".',
  async action({ positionals, values }, io) {
    const client = adminClient(io.env);
    const id = positionals[0]!;
    let job = await client.eraseIntegrator(id);
    while (values.wait === true && job.state === 'running') {
      await new Promise((r) => setTimeout(r, 2_000));
      job = await client.getErasure(id);
    }
    printJson(io, job);
    return job.state === 'failed' ? 1 : 0;
  },
});
