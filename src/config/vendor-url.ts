/**
 * Keys must not cross the network in clear text: a vendor URL is https, or http to loopback or
 * to a host allowed by name (`VENDOR_ALLOW_INSECURE_HOSTS`: a sidecar, the sandbox in compose).
 */
export function isSafeVendorUrl(url: URL, allowInsecureHosts: readonly string[]): boolean {
  if (url.protocol === 'https:') return true;
  return (
    url.protocol === 'http:' &&
    (isLoopback(url.hostname) || allowInsecureHosts.includes(url.hostname))
  );
}

export function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
