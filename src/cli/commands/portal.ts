import { adminClient, integratorClient } from '../credentials.js';
import { keyFlag } from '../flags.js';
import { defineCommand } from '../program.js';
import { printJson, UsageError } from '../support.js';

/** `90s`, `15m`, `2h` (or bare seconds) → seconds. */
export function durationSeconds(text: string): number {
  const match = /^(\d+)(s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--ttl: expected a duration such as 900, 15m or 2h, got "${text}"`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
}

const linkOptions = {
  'read-only': { type: 'boolean', help: 'a session that can look but not change anything' },
  ttl: { type: 'string', value: 'duration', help: 'the session the link opens lasts this long (5m–12h; default 1h)' },
} as const;
const optionsOf = (values: Record<string, unknown>) => ({
  scope: values['read-only'] === true ? ('read' as const) : ('manage' as const),
  ...(typeof values.ttl === 'string' ? { sessionSeconds: durationSeconds(values.ttl) } : {}),
});
const notes =
  'Prints { url, expiresAt }: the link works once, within 5 minutes; its token is in the fragment (docs/portal.md).';

export const portalLinkCommand = defineCommand({
  name: 'portal link',
  summary: "A single-use link into the portal: an integrator's (operator, admin token), else your own (signed)",
  args: ['[integratorId]'],
  options: { ...linkOptions, key: keyFlag },
  notes: `${notes} With an integratorId: POST /internal/v1/integrators/{id}/portal-links; without: POST /v1/portal/sessions.`,
  async action({ values, positionals }, io) {
    const [integratorId] = positionals;
    const options = optionsOf(values);
    const made =
      integratorId === undefined
        ? await integratorClient(io.env, values.key as string | undefined).portalLink(options)
        : await adminClient(io.env).portalLink(integratorId, options);
    printJson(io, made);
    return 0;
  },
});

export const portalRevokeCommand = defineCommand({
  name: 'portal revoke',
  summary: 'Operator: end every portal session and unused link of an integrator (DELETE …/{id}/portal-sessions)',
  args: ['<integratorId>'],
  async action({ positionals }, io) {
    printJson(io, await adminClient(io.env).revokePortalSessions(positionals[0]!));
    return 0;
  },
});
