import type { AppConfig } from '../../src/config/app-config';
import { VendorTrouble } from '../../src/delivery/vendor-trouble';
import { VendorGate } from '../../src/delivery/vendor.gate';
import { VendorError, VendorTimeoutError } from '../../src/email-api/vendor.errors';
import { MetricsService } from '../../src/metrics/metrics.service';

/** How long the specs' gate pauses for an outage or an auth refusal. */
export const PAUSE_MS = 5;

/**
 * A `VendorTrouble` on a gate and metrics of its own, pausing `PAUSE_MS`, under `policy`:
 * `trips` watches the gate, `count` reads a counter's value for some labels.
 */
export function vendorTrouble(policy: 'resend' | 'fail' = 'resend') {
  const config = {
    idempotency: { ambiguousSendPolicy: policy },
    batching: { pauseOnAuthFailureMs: PAUSE_MS, pauseOnVendorFailureMs: PAUSE_MS },
  } as unknown as AppConfig;
  const gate = new VendorGate();
  const trips = jest.spyOn(gate, 'trip');
  const metrics = new MetricsService();
  const count = async (name: string, labels: Record<string, string>) => {
    const metric = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
    const match = metric.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return match?.value ?? 0;
  };
  return { trouble: new VendorTrouble(config, gate, metrics), gate, trips, count };
}

/** A permanent refusal. */
export const rejected = (status = 422) =>
  new VendorError(`vendor answered ${status}`, false, status);
/** Trouble time can cure. */
export const unavailable = () => new VendorError('vendor answered 503', true, 503);
/** A request written and never answered: it may have reached the vendor. */
export const lostAnswer = () =>
  new VendorTimeoutError('headers timeout', 'UND_ERR_HEADERS_TIMEOUT', true, { ambiguous: true });
