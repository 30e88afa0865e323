import {
  integratorsCreateCommand,
  integratorsEraseCommand,
  integratorsEraseSubjectCommand,
  integratorsGetCommand,
} from './commands/integrators.js';
import { eventsPublishCommand } from './commands/events-publish.js';
import { keygenCommand } from './commands/keygen.js';
import { keysAddCommand, keysRevokeCommand } from './commands/keys.js';
import { initCommand } from './commands/init.js';
import { listenCommand } from './commands/listen.js';
import { subscriptionCommands } from './commands/subscriptions.js';
import { deliveryCommands, subscriptionTestCommand } from './commands/deliveries.js';
import { eventsListCommand } from './commands/events-list.js';
import { adminDeliveryCommands } from './commands/admin-deliveries.js';
import { temporalCommands } from './commands/temporal.js';
import { retentionCommands } from './commands/retention.js';
import { storageCompactCommand } from './commands/storage.js';
import { portalLinkCommand, portalRevokeCommand } from './commands/portal.js';
import { runProgram } from './program.js';
import type { CliCommand, CliIo, CommandSpec } from './types.js';

/** Every command `herald` knows, in the order `herald --help` lists them (a group where its first command is). */
export const commands: readonly CliCommand[] = [
  // development
  initCommand,
  listenCommand,
  // integrator (signed with the integrator's key)
  ...subscriptionCommands,
  subscriptionTestCommand,
  ...deliveryCommands,
  eventsListCommand,
  portalLinkCommand,
  // operator (admin token)
  keygenCommand,
  integratorsCreateCommand,
  integratorsGetCommand,
  integratorsEraseCommand,
  integratorsEraseSubjectCommand,
  keysAddCommand,
  keysRevokeCommand,
  portalRevokeCommand,
  eventsPublishCommand,
  ...adminDeliveryCommands,
  ...temporalCommands,
  ...retentionCommands,
  storageCompactCommand,
];

/** Runs `herald <argv…>` and resolves to the exit status: 0 done, 1 failed, 2 usage (docs/cli.md, "Exit status"). */
export const runCli = (argv: string[], io: CliIo, registry: readonly CommandSpec[] = commands): Promise<number> =>
  runProgram(registry, argv, io);
