import { ConfigError, type Config } from '../config.js';

type EgressConfig = Pick<
  Config,
  'NODE_ENV' | 'HERALD_DNS_STATIC' | 'HERALD_ALLOW_CIDRS' | 'NODE_EXTRA_CA_CERTS' | 'HERALD_UNSAFE_EGRESS'
>;

export interface EgressExemption {
  readonly variable: 'HERALD_DNS_STATIC' | 'HERALD_ALLOW_CIDRS' | 'NODE_EXTRA_CA_CERTS';
  /** What it lets deliveries do that the rules forbid (names, ranges, a path: nothing secret). */
  readonly effect: string;
  /** What a production deployment does instead. */
  readonly fix: string;
}

/**
 * The development exemptions from the delivery egress rules that `config` puts in force. NODE_EXTRA_CA_CERTS counts
 * whatever file it names: Node trusts that file's CAs for every TLS connection, a receiver's included, and which CAs
 * a bundle adds to Node's own cannot be told here (a system bundle may hold a corporate interception CA).
 */
export function egressExemptions(config: EgressConfig): EgressExemption[] {
  const found: EgressExemption[] = [];
  const pins = Object.entries(config.HERALD_DNS_STATIC);
  if (pins.length > 0)
    found.push({
      variable: 'HERALD_DNS_STATIC',
      effect: `answers for ${pins.map(([name, addresses]) => `${name}=${addresses.join('|')}`).join(',')} instead of DNS`,
      fix: 'unset it and let DNS answer',
    });
  if (config.HERALD_ALLOW_CIDRS.length > 0)
    found.push({
      variable: 'HERALD_ALLOW_CIDRS',
      effect: `lets the names HERALD_DNS_STATIC pins resolve into ${config.HERALD_ALLOW_CIDRS.join(',')}`,
      fix: 'unset it: receivers must have public addresses',
    });
  if (config.NODE_EXTRA_CA_CERTS !== undefined)
    found.push({
      variable: 'NODE_EXTRA_CA_CERTS',
      effect: `makes receivers' certificates trusted when issued by a CA in ${config.NODE_EXTRA_CA_CERTS}`,
      fix:
        'unset it for the API and the worker (a private CA for MongoDB goes in MONGODB_URL as tlsCAFile, ' +
        'for Temporal in TEMPORAL_TLS_CA_FILE)',
    });
  return found;
}

/**
 * The API's and the worker's start-up check. With NODE_ENV=production any exemption refuses the start, naming each
 * variable and its fix, unless HERALD_UNSAFE_EGRESS=1. Otherwise: the one warning line to log (in every NODE_ENV),
 * or null when no exemption is in force.
 */
export function checkEgressExemptions(config: EgressConfig): string | null {
  const found = egressExemptions(config);
  if (found.length === 0) return null;
  if (config.NODE_ENV === 'production' && !config.HERALD_UNSAFE_EGRESS) {
    const lines = found.map(
      (e) =>
        `  ${e.variable}: a development egress exemption (it ${e.effect}), refused with NODE_ENV=production; ` +
        `${e.fix}, or set HERALD_UNSAFE_EGRESS=1 to start with it anyway`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const acknowledged = config.HERALD_UNSAFE_EGRESS ? ' (HERALD_UNSAFE_EGRESS=1)' : '';
  return `delivery egress exemptions in force${acknowledged}: ${found.map((e) => `${e.variable} ${e.effect}`).join('; ')}`;
}
