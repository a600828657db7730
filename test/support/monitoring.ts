import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const MONITORING = join(__dirname, '../../deploy/monitoring');
export const RULES_FILE = join(MONITORING, 'mailbridge.rules.yml');
export const RULES_TEST_FILE = join(MONITORING, 'mailbridge.rules.test.yml');
export const DASHBOARD_FILE = join(MONITORING, 'mailbridge.dashboard.json');

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
}

export interface Dashboard {
  title: string;
  uid: string;
  templating: { list: Array<{ name: string; type: string; query?: unknown }> };
  panels: DashboardPanel[];
}

export function alertRules(): AlertRule[] {
  const file = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ rules: AlertRule[] }> };
  return file.groups.flatMap((g) => g.rules);
}

export function dashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
}

/** Metric names in a PromQL expression: ours and Node's by prefix, and Prometheus' own `up`. */
export function metricNamesIn(expr: string): string[] {
  const names = expr.match(/\b(?:mailbridge|process|nodejs)_[a-z0-9_]+\b|\bup(?=\s*\{)/g) ?? [];
  return [...new Set(names)];
}

/** Every metric name the dashboard's panels and the alert rules query, with where it is used. */
export function metricNamesUsed(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const add = (expr: string, where: string) => {
    for (const name of metricNamesIn(expr)) used.set(name, [...(used.get(name) ?? []), where]);
  };
  for (const rule of alertRules()) add(rule.expr, `alert ${rule.alert}`);
  const board = dashboard();
  for (const panel of board.panels) {
    for (const target of panel.targets ?? []) add(target.expr, `panel "${panel.title}"`);
  }
  for (const variable of board.templating.list) {
    if (variable.type === 'query') add(JSON.stringify(variable.query), `variable ${variable.name}`);
  }
  return used;
}

/** Series names a scrape holds for a family of `type`: a histogram's are its three series. */
export function seriesNamesOf(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}
