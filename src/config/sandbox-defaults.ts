/**
 * Where the local vendor sandbox listens and the keys it accepts. Not secrets: they only unlock
 * the stand-in, and local mode's embedded defaults point the service at it.
 */
export const SANDBOX_PORT = 8025;
export const SANDBOX_RELAY_ACCESS_TOKEN = 'sandbox-relay-token';
export const SANDBOX_API_KEY = 'sandbox-api-key';
