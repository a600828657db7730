import type { VendorConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/config.loader';

/** The keys the specs' sandboxes expect; the client sends them as the vendor's headers. */
export const SANDBOX_KEYS = { relayAccessToken: 'relay-key-int-1f6d', apiKey: 'api-key-int-93ab' };

/**
 * The vendor config the service would build from its variables, pointed at a sandbox listening
 * on `url` with `SANDBOX_KEYS`; `env` adds or replaces variables (retries, timeouts, pools).
 */
export function sandboxVendorConfig(url: string, env: Record<string, string> = {}): VendorConfig {
  return loadConfig({
    KAFKA_BROKERS: '127.0.0.1:1',
    SENDER_FROM_EMAIL: 'hello@shop.example',
    VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
    VENDOR_BASE_URL: `${url}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: SANDBOX_KEYS.relayAccessToken,
    VENDOR_API_KEY: SANDBOX_KEYS.apiKey,
    SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    ...env,
  }).vendor;
}
