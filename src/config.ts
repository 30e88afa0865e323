import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** `a.example=1.2.3.4,b.example=5.6.7.8|::1` → { 'a.example': ['1.2.3.4'], 'b.example': ['5.6.7.8', '::1'] } */
const dnsStatic = optionalString.transform((raw, ctx) => {
  const map: Record<string, string[]> = {};
  for (const entry of (raw ?? '').split(',').filter((e) => e.trim() !== '')) {
    const [name, addrs] = entry.split('=');
    if (!name?.trim() || !addrs?.trim()) {
      ctx.addIssue({ code: 'custom', message: `expected name=address[|address…], got "${entry}"` });
      return z.NEVER;
    }
    map[name.trim().toLowerCase().replace(/\.$/, '')] = addrs.split('|').map((a) => a.trim());
  }
  return map;
});

const list = optionalString.transform((raw) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HERALD_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_PORT: port.default(3000),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .default('mongodb://127.0.0.1:27017/'),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/, 'letters, digits, _ and - only')
    .default('herald'),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('herald-deliveries'),
  HERALD_ADMIN_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** base64 of 32 bytes: encrypts subscription signing keys at rest (AES-256-GCM). */
  HERALD_MASTER_KEY: optionalString,
  HERALD_MASTER_KEY_FILE: optionalString,
  /** HMAC secret for opaque page cursors; derived from the master key when unset. */
  HERALD_CURSOR_SECRET: optionalString,
  /** How the event history listing is stored: page documents (embedded server) or indexes (MongoDB); docs/events.md. */
  HERALD_LISTING_LAYOUT: z.enum(['auto', 'pages', 'indexes']).default('auto'),
  HERALD_DNS_STATIC: dnsStatic,
  HERALD_ALLOW_CIDRS: list,
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment once; a bad variable fails fast with a message that names it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}
