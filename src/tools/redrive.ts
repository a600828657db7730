import 'reflect-metadata';
import { ConfigError } from '../config/config.error';
import { loadKafkaToolConfig } from '../config/config.loader';
import { createKafka } from '../kafka/kafka.provider';
import { parseRedriveOptions, RedriveUsageError, USAGE } from './redrive/redrive-options';
import { Redriver, type RedriveSummary } from './redrive/redriver';

/**
 * `npm run redrive -- --code CODE [--topic T] [--since T] [--until T] [--dry-run] [--rate N]`:
 * republishes dead letters to their original topics; see docs/events.md, "Redriving dead letters".
 * Reads the service's environment variables for the broker, its security and the topic names.
 */
export async function runRedrive(
  argv: string[],
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<RedriveSummary | undefined> {
  const options = parseRedriveOptions(argv);
  if (options.help) {
    print(USAGE);
    return undefined;
  }
  const config = loadKafkaToolConfig(env);
  const kafka = createKafka(config, { clientId: `${config.kafka.clientId}-redrive` });
  return new Redriver(kafka, config, options, print).redrive();
}

/** Exit codes: 0 done, 1 failed, 2 bad arguments, 78 bad configuration (as the service). */
async function main(): Promise<void> {
  try {
    await runRedrive(process.argv.slice(2), process.env, (line) => console.log(line));
  } catch (error) {
    if (error instanceof RedriveUsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    console.error(`redrive failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

if (require.main === module) void main().then(() => process.exit(0));
