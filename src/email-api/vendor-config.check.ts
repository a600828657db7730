import type { VendorConfig } from '../config/app-config';
import { isSafeVendorUrl } from '../config/vendor-url';
import { VendorConfigError } from './vendor.errors';

/** The loader checks the same; the client enforces it too, whoever builds its config. */
export function checkVendorConfig(config: VendorConfig): void {
  for (const [name, value] of [
    ['VENDOR_RELAY_BASE_URL', config.relayBaseUrl],
    ['VENDOR_BASE_URL', config.baseUrl],
  ] as const) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new VendorConfigError(`${name} is not a URL`);
    }
    if (url.username || url.password)
      throw new VendorConfigError(`${name} must not hold credentials`);
    if (!isSafeVendorUrl(url, config.allowInsecureHosts)) {
      throw new VendorConfigError(
        `${name} must use https (http only for loopback or VENDOR_ALLOW_INSECURE_HOSTS)`,
      );
    }
  }
  // Visible ASCII only: anything else could split a header, or would be refused by undici with
  // an error that might quote it.
  if (!/^[\x21-\x7e]+$/.test(config.relayAccessToken)) {
    throw new VendorConfigError('VENDOR_RELAY_ACCESS_TOKEN is empty or not visible ASCII');
  }
  if (!/^[\x21-\x7e]+$/.test(config.apiKey)) {
    throw new VendorConfigError('VENDOR_API_KEY is empty or not visible ASCII');
  }
}
