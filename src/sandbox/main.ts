import {
  SANDBOX_API_KEY,
  SANDBOX_PORT,
  SANDBOX_RELAY_ACCESS_TOKEN,
} from '../config/sandbox-defaults';
import { SandboxServer } from './sandbox.server';

/**
 * `npm run sandbox [port]`: the vendor stand-in on its own, with the fixed sandbox keys.
 */
async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? SANDBOX_PORT);
  const sandbox = new SandboxServer({
    relayAccessToken: SANDBOX_RELAY_ACCESS_TOKEN,
    apiKey: SANDBOX_API_KEY,
  });
  const url = await sandbox.listen(port);
  console.log(`vendor sandbox listening on ${url} (requests: ${url}/_sandbox/requests)`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
