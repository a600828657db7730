/** A request budget's pace: `count` requests per `periodMs`. */
export interface VendorRate {
  count: number;
  periodMs: number;
}

const PERIODS: Record<string, number> = { s: 1_000, min: 60_000, h: 3_600_000 };

/** What `VENDOR_*_RATE` accepts: `off`, or a count per second, minute or hour (`60/min`). */
export const VENDOR_RATE_FORM = /^(off|[1-9]\d{0,5}\/(s|min|h))$/;

/** `60/min` → 60 per 60 000 ms; `off` → undefined (no pace). Assumes {@link VENDOR_RATE_FORM}. */
export function parseVendorRate(text: string): VendorRate | undefined {
  if (text === 'off') return undefined;
  const [count, unit] = text.split('/');
  return { count: Number(count), periodMs: PERIODS[unit] };
}

/** What the rate, burst and margin variables must agree on beyond their own forms. */
export function checkVendorRates(vars: {
  VENDOR_CONTACTS_RATE: string;
  VENDOR_CONTACTS_BURST: number;
  VENDOR_RELAY_RATE: string;
  VENDOR_RELAY_BURST: number;
  VENDOR_RATE_MARGIN_MS: number;
}): string[] {
  const problems: string[] = [];
  for (const endpoint of ['CONTACTS', 'RELAY'] as const) {
    const text = vars[`VENDOR_${endpoint}_RATE`];
    if (typeof text !== 'string' || !VENDOR_RATE_FORM.test(text)) continue; // reported already
    const rate = parseVendorRate(text);
    const burst = vars[`VENDOR_${endpoint}_BURST`];
    if (!rate) continue;
    if (Number.isInteger(burst) && burst > rate.count) {
      problems.push(
        `VENDOR_${endpoint}_BURST must not exceed the count of VENDOR_${endpoint}_RATE (${rate.count})`,
      );
    }
    const margin = vars.VENDOR_RATE_MARGIN_MS;
    if (Number.isInteger(margin) && margin >= rate.periodMs) {
      problems.push(
        `VENDOR_RATE_MARGIN_MS must be shorter than the period of VENDOR_${endpoint}_RATE (${rate.periodMs} ms)`,
      );
    }
  }
  return problems;
}
