// Reads ops/ (alert rules, Grafana dashboard) and lists the PromQL expressions and the metric names they use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { root } from '../../scripts/lib/servers.js';

export const alertRulesPath = join(root, 'ops', 'alert-rules.yml');
export const dashboardPath = join(root, 'ops', 'grafana-dashboard.json');

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface AlertRules {
  groups: { name: string; rules: Rule[] }[];
}
interface Dashboard {
  title: string;
  panels: { title: string; targets?: { expr: string }[] }[];
}

export const alertRules = (): AlertRules => parse(readFileSync(alertRulesPath, 'utf8')) as AlertRules;
export const dashboard = (): Dashboard => JSON.parse(readFileSync(dashboardPath, 'utf8')) as Dashboard;

/** Every PromQL expression of ops/, with where it comes from. */
export function opsExpressions(): { where: string; expr: string }[] {
  const rules = alertRules().groups.flatMap((g) =>
    g.rules.map((r) => ({ where: `alert ${r.alert ?? '?'}`, expr: r.expr ?? '' })),
  );
  const panels = dashboard().panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
  );
  return [...rules, ...panels];
}

/**
 * The metric names an expression uses: Herald's and Temporal's prefixes, and any identifier right before a
 * selector `{` or a range `[` (so a metric of another name cannot slip through unchecked).
 */
export function metricsIn(expr: string): string[] {
  const names = new Set<string>();
  for (const [name] of expr.matchAll(/\b(?:herald|temporal)_[a-z0-9_]+/g)) names.add(name);
  for (const [, name] of expr.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)) names.add(name!);
  return [...names];
}
