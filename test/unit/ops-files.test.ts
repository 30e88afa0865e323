// ops/: the alert rules and the dashboard parse, cover what an operator must be paged for, and pass `promtool check
// rules` (the promtool `npm test` builds: scripts/tools.sh --promtool). That their metrics exist on /metrics is
// checked against live endpoints in test/integration/metrics-e2e.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promtoolPath } from '../../scripts/lib/servers.js';
import { alertRules, alertRulesPath, dashboard, metricsIn, opsExpressions } from '../helpers/ops-files.js';

/** PROMTOOL (another promtool, e.g. one a CI image ships), else the pinned one `npm test` installs. */
function findPromtool(): string {
  const promtool = process.env.PROMTOOL || promtoolPath;
  assert.ok(existsSync(promtool), `${promtool} is missing: \`npm test\` builds it (scripts/tools.sh --promtool)`);
  return promtool;
}

describe('ops/ alert rules and dashboard', () => {
  it('has the alerts an operator needs, each with an expression, a severity and a summary', () => {
    const rules = alertRules().groups.flatMap((g) => g.rules);
    const byName = new Map(rules.map((r) => [r.alert, r]));
    const required = {
      HeraldDeliveryLagHigh: 'herald_delivery_lag_seconds_bucket',
      HeraldDeliveryFailureRatioHigh: 'herald_attempts_total',
      HeraldDeliveriesStuckPending: 'herald_deliveries_overdue',
      HeraldEventsStoredLate: 'herald_first_attempt_event_waits_total',
      HeraldNoWorkerPolling: 'temporal_num_pollers',
    };
    for (const [alert, metric] of Object.entries(required)) {
      const rule = byName.get(alert);
      assert.ok(rule, `alert ${alert}`);
      assert.ok(metricsIn(rule.expr ?? '').includes(metric), `${alert} uses ${metric}`);
    }
    for (const rule of rules) {
      assert.ok(rule.alert && rule.expr, 'alert and expr');
      assert.match(rule.labels?.severity ?? '', /^(page|warn)$/, `${rule.alert} severity`);
      assert.ok(rule.annotations?.summary, `${rule.alert} summary`);
      if (rule.for !== undefined) assert.match(rule.for, /^\d+[smh]$/);
    }
  });

  it('names a metric in every expression, and no id label anywhere', () => {
    const panels = dashboard().panels;
    assert.ok(panels.length >= 10);
    assert.ok(new Set(panels.map((p) => p.title)).size === panels.length, 'distinct panel titles');
    for (const { where, expr } of opsExpressions()) {
      assert.ok(metricsIn(expr).length > 0, `${where} names a metric`);
      assert.doesNotMatch(expr, /(integrator|subscription|delivery|event)_?id/i, `${where}: no id labels`);
      let depth = 0;
      for (const ch of expr) depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
      assert.equal(depth, 0, `${where}: balanced parentheses`);
    }
  });

  it('passes `promtool check rules`, the dashboard queries too (as recording rules)', () => {
    const promtool = findPromtool();
    const out = execFileSync(promtool, ['check', 'rules', alertRulesPath], { encoding: 'utf8' });
    assert.match(out, /SUCCESS: \d+ rules found/);

    const queries = dashboard().panels.flatMap((p) => (p.targets ?? []).map((x) => x.expr));
    const rules = queries.map((expr, i) => ({
      record: `herald:dashboard_query:${i}`,
      expr: expr.replaceAll('$__rate_interval', '5m'),
    }));
    const dir = mkdtempSync(join(tmpdir(), 'herald-ops-'));
    try {
      const file = join(dir, 'dashboard-rules.json'); // JSON is YAML
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const checked = execFileSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
      assert.match(checked, new RegExp(`SUCCESS: ${rules.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
