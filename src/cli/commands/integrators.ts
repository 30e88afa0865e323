import type { ErasureJob } from '../../client/admin-client.js';
import { adminClient } from '../credentials.js';
import { defineCommand } from '../program.js';
import type { CliIo } from '../types.js';
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
    return await followJob(io, values.wait === true, await client.eraseIntegrator(id), () => client.getErasure(id));
  },
});

export const integratorsEraseSubjectCommand = defineCommand({
  name: 'integrators erase-subject',
  summary:
    "Erase an integrator's events that name an id, with their deliveries: a job " +
    '(DELETE /internal/v1/integrators/{id}/subjects/{subjectId}); --wait polls it to the end',
  args: ['<integratorId>', '<subjectId>'],
  options: { wait: { type: 'boolean', help: 'poll the job every 2 s until it ends; exit 1 if it failed' } },
  notes: 'Irreversible. Which events name a subject: docs/retention.md, "Erasing a subject".',
  async action({ positionals, values }, io) {
    const client = adminClient(io.env);
    const [integratorId, subjectId] = positionals as [string, string];
    const first = await client.eraseSubject(integratorId, subjectId);
    return await followJob(io, values.wait === true, first, () => client.getSubjectErasure(integratorId, subjectId));
  },
});

/** Prints the job, polled every 2 s to its end with `wait`; exit 1 if it failed. */
async function followJob(io: CliIo, wait: boolean, first: ErasureJob, poll: () => Promise<ErasureJob>) {
  let job = first;
  while (wait && job.state === 'running') {
    await new Promise((r) => setTimeout(r, 2_000));
    job = await poll();
  }
  printJson(io, job);
  return job.state === 'failed' ? 1 : 0;
}
