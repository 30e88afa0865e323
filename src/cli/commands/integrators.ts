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
