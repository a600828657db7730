import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  SANDBOX_API_KEY,
  SANDBOX_PORT,
  SANDBOX_RELAY_ACCESS_TOKEN,
} from '../config/sandbox-defaults';
import { validateFaults } from './fault-injector';
import { SandboxServer } from './sandbox.server';

const USAGE = `npm run sandbox -- [port] [--host 127.0.0.1] [--faults JSON | --faults-file FILE] [--record-limit N] [--merge-escapes-html true|false]
  faults, e.g. '{"statuses":[{"status":503,"share":0.2},{"status":429,"share":0.1,"retryAfterSeconds":1}]}'
  change them at run time: curl -X PUT --data @faults.json http://127.0.0.1:${SANDBOX_PORT}/_sandbox/faults
  --merge-escapes-html: whether attribute values are HTML-escaped into a body (true), as VENDOR_MERGE_ESCAPES_HTML`;

/**
 * `npm run sandbox`: the vendor stand-in on its own, with the fixed sandbox keys. Options come
 * from the command line only; see docs/vendor.md for the fault options and the admin API.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      faults: { type: 'string' },
      'faults-file': { type: 'string' },
      'record-limit': { type: 'string' },
      'merge-escapes-html': { type: 'string', default: 'true' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const recordLimit =
    values['record-limit'] === undefined ? undefined : Number(values['record-limit']);
  if (recordLimit !== undefined && !(Number.isInteger(recordLimit) && recordLimit >= 0)) {
    throw new Error('--record-limit must be an integer >= 0');
  }
  const escapes = values['merge-escapes-html'];
  if (escapes !== 'true' && escapes !== 'false') {
    throw new Error('--merge-escapes-html must be true or false');
  }
  const faultsText =
    values.faults ?? (values['faults-file'] ? readFileSync(values['faults-file'], 'utf8') : '{}');
  const sandbox = new SandboxServer({
    relayAccessToken: SANDBOX_RELAY_ACCESS_TOKEN,
    apiKey: SANDBOX_API_KEY,
    faults: validateFaults(JSON.parse(faultsText)),
    recordLimit,
    mergeEscapesHtml: escapes === 'true',
  });
  const port = Number(values.port ?? positionals[0] ?? SANDBOX_PORT);
  const url = await sandbox.listen(port, values.host);
  console.log(`vendor sandbox listening on ${url}`);
  console.log(`  inbox:   ${url}/inbox`);
  console.log(`  record:  ${url}/_sandbox/requests   stats: ${url}/_sandbox/stats`);
  console.log(`  faults:  ${url}/_sandbox/faults (GET, PUT, DELETE)`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`sandbox: ${(error as Error).message}\n${USAGE}`);
  process.exit(1);
});
