import { adminClient } from '../credentials.js';
import { parseCommandArgs, printJson } from '../support.js';
import type { CliCommand } from '../types.js';

export const integratorsCreateCommand: CliCommand = {
  name: 'integrators create',
  summary: 'Register an integrator (POST /internal/v1/integrators)',
  usage: 'herald integrators create <name>\n\n  quote a name with spaces: herald integrators create "Acme Payments"',
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {}, 1);
    printJson(io, await adminClient(io.env).createIntegrator(positionals[0] as string));
    return 0;
  },
};

export const integratorsGetCommand: CliCommand = {
  name: 'integrators get',
  summary: 'Show an integrator with its keys (GET /internal/v1/integrators/{id})',
  usage: 'herald integrators get <integratorId>',
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {}, 1);
    printJson(io, await adminClient(io.env).getIntegrator(positionals[0] as string));
    return 0;
  },
};
