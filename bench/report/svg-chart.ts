import type { LatencySummary, PhaseSummary } from './summary';
import { fmt } from './summary';

const WIDTH = 1000;
const PANEL = 470;
const LABEL = 170;
const ROW = 26;
const TOP = 64;
const COLORS: Record<string, string> = {
  'ceiling-consume': '#9aa5b1',
  'ceiling-consume-produce': '#7b8794',
  'ceiling-http': '#b8c2cc',
  'pipeline-floor': '#60a5fa',
  'pipeline-floor-bounded': '#93c5fd',
  naive: '#e3a008',
  mailbridge: '#2563eb',
};
const PERCENTILE_COLORS = ['#93c5fd', '#3b82f6', '#1e3a8a'];

/**
 * Two panels, hand-drawn as SVG text: throughput per phase (events/s, log scale) and event-to-
 * result latency per phase (p50/p95/p99, log scale). Log scales, because the naive design and
 * the ceilings are orders of magnitude apart.
 */
export function svgChart(
  title: string,
  throughput: PhaseSummary[],
  latency: LatencySummary[],
  latencyTitle: string,
): string {
  const throughputRows = throughput.filter((s) => Number.isFinite(s.eventsPerSecond));
  const latencyRows = latency.length * (3 * 12 + 10);
  const body = Math.max(throughputRows.length * ROW, latencyRows);
  const height = TOP + body + 40;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    text(16, 24, title, 'font-size="15" font-weight="600"'),
    ...throughputPanel(throughputRows, 16, TOP),
    ...latencyPanel(latency, PANEL + 30, TOP, latencyTitle),
    text(
      16,
      TOP + body + 24,
      'Medians over repetitions. Capped: stopped at its time cap. Hatched: no result within the wait (saturated).',
      'font-size="11" fill="#52606d"',
    ),
    '</svg>',
  ];
  return parts.join('\n') + '\n';
}

function throughputPanel(rows: PhaseSummary[], x0: number, y0: number): string[] {
  const out = [
    text(
      x0,
      y0 - 14,
      'Throughput, user.signed_up.v1 (events/s, median, log scale)',
      'font-weight="600"',
    ),
  ];
  const values = rows.map((r) => r.eventsPerSecond).filter((v) => v > 0);
  const scale = logScale(values, PANEL - LABEL - 70);
  rows.forEach((row, i) => {
    const y = y0 + i * ROW;
    const w = row.eventsPerSecond > 0 ? scale(row.eventsPerSecond) : 0;
    out.push(text(x0 + LABEL - 6, y + 15, row.label, 'text-anchor="end"'));
    out.push(rect(x0 + LABEL, y + 4, w, ROW - 8, COLORS[row.phase] ?? '#999'));
    const capped = row.statuses.includes('capped') ? ' (capped)' : '';
    out.push(text(x0 + LABEL + w + 4, y + 15, `${fmt(row.eventsPerSecond)}${capped}`));
  });
  return out;
}

function latencyPanel(rows: LatencySummary[], x0: number, y0: number, title: string): string[] {
  const out = [text(x0, y0 - 14, title, 'font-weight="600"')];
  const values = rows
    .flatMap((r) => [r.p50, r.p95, r.p99])
    .filter((v): v is number => v !== null && v > 0);
  const room = PANEL - LABEL - 120;
  const scale = logScale(values.length > 0 ? values : [1, 10], room);
  let y = y0;
  for (const row of rows) {
    out.push(text(x0 + LABEL - 6, y + 22, row.phase, 'text-anchor="end"'));
    (['p50', 'p95', 'p99'] as const).forEach((key, k) => {
      const value = row[key];
      const by = y + k * 12;
      const w = value === null ? room : Math.max(1, scale(Math.max(1, value)));
      const fill = value === null ? 'url(#beyond)' : PERCENTILE_COLORS[k];
      out.push(rect(x0 + LABEL, by, w, 10, fill));
      const label =
        value === null ? `${key} beyond window` : `${key} ${value.toLocaleString('en-US')} ms`;
      out.push(text(x0 + LABEL + w + 4, by + 9, label, 'font-size="10"'));
    });
    y += 3 * 12 + 10;
  }
  out.unshift(
    '<defs><pattern id="beyond" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      '<rect width="3" height="6" fill="#dc2626"/></pattern></defs>',
  );
  return out;
}

/** Maps [min/2, max] onto [0, width] logarithmically; every bar stays visible. */
function logScale(values: number[], width: number): (v: number) => number {
  const lo = Math.log10(Math.max(1e-3, Math.min(...values) / 2));
  const hi = Math.log10(Math.max(...values));
  const span = Math.max(1e-9, hi - lo);
  return (v) => Math.max(2, ((Math.log10(v) - lo) / span) * width);
}

function rect(x: number, y: number, w: number, h: number, fill: string): string {
  return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h}" fill="${fill}"/>`;
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(content)}</text>`;
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!,
  );
}
