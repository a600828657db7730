import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MetricsService } from '../../src/metrics/metrics.service';
import {
  DASHBOARD_FILE,
  RULES_FILE,
  RULES_TEST_FILE,
  alertRules,
  dashboard,
  metricNamesUsed,
  seriesNamesOf,
} from '../support/monitoring';
import { ROOT } from './manifests';

/**
 * The dashboard and alert rules under deploy/monitoring: the rules checked and unit-tested by
 * promtool (Debian's, scripts/promtool.sh), the dashboard's structure checked, and every metric
 * either of them queries held to the families the service registers, so a renamed metric fails
 * here rather than on an operator's screen.
 */

function promtool(...args: string[]): string {
  return execFileSync('bash', [join(ROOT, 'scripts/promtool.sh'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Every series name a scrape of the service can hold, from its registry. */
async function exposedSeries(): Promise<Set<string>> {
  const families = await new MetricsService().registry.getMetricsAsJSON();
  return new Set(families.flatMap((f) => seriesNamesOf(f.name, String(f.type))));
}

describe('deploy/monitoring', () => {
  describe('alert rules', () => {
    it('pass promtool check rules', () => {
      expect(promtool('check', 'rules', RULES_FILE)).toMatch(/SUCCESS: \d+ rules found/);
    });

    it('pass their promtool unit tests', () => {
      expect(promtool('test', 'rules', RULES_TEST_FILE)).toContain('SUCCESS');
    });

    it('each have a unit test in which they fire and one in which they stay silent', () => {
      const tests = (
        parse(readFileSync(RULES_TEST_FILE, 'utf8')) as {
          tests: Array<{
            alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }>;
          }>;
        }
      ).tests.flatMap((t) => t.alert_rule_test);
      const missing = alertRules().flatMap(({ alert }) => {
        const mine = tests.filter((t) => t.alertname === alert);
        return [
          ...(mine.some((t) => t.exp_alerts.length > 0) ? [] : [`${alert} never fires`]),
          ...(mine.some((t) => t.exp_alerts.length === 0) ? [] : [`${alert} is never silent`]),
        ];
      });
      expect(missing).toEqual([]);
    });

    it('each carry a severity, a summary and a description', () => {
      const incomplete = alertRules()
        .filter(
          (r) =>
            !['critical', 'warning'].includes(r.labels?.severity ?? '') ||
            !r.annotations?.summary ||
            !r.annotations.description,
        )
        .map((r) => r.alert);
      expect(incomplete).toEqual([]);
    });

    it('cover the service down, lag growing, gate closed, dead letters and duplicates', () => {
      expect(alertRules().map((r) => r.alert)).toEqual(
        expect.arrayContaining([
          'MailbridgeDown',
          'MailbridgeConsumerLagGrowing',
          'MailbridgeVendorGateClosedAuth',
          'MailbridgeVendorGateClosedOutage',
          'MailbridgeDeadLetterRate',
          'MailbridgePossibleDuplicateSends',
        ]),
      );
    });
  });

  describe('Grafana dashboard', () => {
    const board = dashboard();
    const panels = board.panels.filter((p) => p.type !== 'row');

    it('is a dashboard with a Prometheus data source variable that every query uses', () => {
      expect(board).toMatchObject({ title: 'mailbridge', uid: 'mailbridge' });
      expect(board.templating.list).toContainEqual(
        expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
      );
      const elsewhere = panels.flatMap((p) =>
        [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]
          .filter((ds) => ds?.uid !== '${datasource}' || ds.type !== 'prometheus')
          .map(() => p.title),
      );
      expect(elsewhere).toEqual([]);
    });

    it('has panels with titles, queries, unique ids and places on the 24-column grid', () => {
      const ids = board.panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of panels) {
        expect(panel.title).not.toBe('');
        expect(panel.targets?.length).toBeGreaterThan(0);
        expect(panel.targets!.every((t) => t.expr.trim() !== '')).toBe(true);
        expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      }
    });

    it('shows what an operator needs', () => {
      const queried = (name: string) =>
        panels.some((p) => (p.targets ?? []).some((t) => t.expr.includes(name)));
      for (const name of [
        'mailbridge_consumer_lag_records',
        'mailbridge_outcomes_total',
        'mailbridge_vendor_request_duration_seconds_bucket',
        'mailbridge_vendor_retries_total',
        'mailbridge_consumer_in_flight_records',
        'mailbridge_vendor_gate_closed',
        'mailbridge_vendor_budget_waits_total',
        'mailbridge_vendor_budget_shrinks_total',
        'mailbridge_dead_letters_total',
        'mailbridge_possible_duplicate_sends_total',
        'nodejs_heap_size_used_bytes',
        'process_cpu_seconds_total',
      ]) {
        expect([name, queried(name)]).toEqual([name, true]);
      }
      const quantiles = panels
        .flatMap((p) => p.targets ?? [])
        .map((t) => /histogram_quantile\((0\.\d+),.*vendor_request_duration/.exec(t.expr)?.[1])
        .filter(Boolean);
      expect(quantiles).toEqual(['0.5', '0.95', '0.99']);
    });
  });

  it('query only metrics the service exposes (or Prometheus itself: up)', async () => {
    const exposed = await exposedSeries();
    exposed.add('up');
    const used = metricNamesUsed();
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used].filter(([name]) => !exposed.has(name));
    expect(unknown).toEqual([]);
  });

  it('test the rules on series the service exposes', async () => {
    const exposed = await exposedSeries();
    exposed.add('up');
    const text = readFileSync(RULES_TEST_FILE, 'utf8');
    const series = [...text.matchAll(/series: '([a-z_:][a-z0-9_:]*)\{/g)].map((m) => m[1]);
    expect(series.length).toBeGreaterThan(0);
    expect(series.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('is a JSON file and a rule file that parse', () => {
    expect(() => JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as unknown).not.toThrow();
    expect(alertRules().length).toBeGreaterThan(0);
  });
});
