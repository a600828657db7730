/** The SDK's handle, to flush and stop it when the service stops. */
export interface TracingSdk {
  shutdown(): Promise<void>;
}

/**
 * Whether the standard OTEL_* variables ask for traces. Tracing is off unless they do: an
 * exporter named in OTEL_TRACES_EXPORTER (other than `none`), or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true
 * turns it off whatever else is set.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
  if (exporters.length > 0) return exporters.some((name) => name !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts OpenTelemetry's Node SDK when the environment asks for traces, so that exporter,
 * endpoint, protocol, headers, sampler, resource and batching all follow the standard OTEL_*
 * variables, read by the SDK itself. Traces only: metrics are served at /metrics and logs go to
 * stdout, so the SDK's metric and log exporters stay off unless set explicitly. The SDK is
 * loaded only then: a service without tracing does not pay for loading it.
 */
export async function startTracingSdk(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TracingSdk | undefined> {
  if (!tracingRequested(env)) return undefined;
  env.OTEL_SERVICE_NAME ??= 'mailbridge';
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  return sdk;
}
