import 'reflect-metadata';
import { childConfig, type FloorChildConfig } from './child-messages';
import { startFloor } from './pipeline-floor';

/** The floor as a phase process: it reports `done` to the harness and stops on SIGTERM. */
async function main(): Promise<void> {
  const floor = await startFloor(childConfig<FloorChildConfig>(), {
    done: (report) => process.send?.(report),
    failed: (error) => {
      console.error(error);
      process.exit(1);
    },
  });
  process.once('SIGTERM', () => {
    // The consumer's disconnect waits for a fetch that may wait 5 s for records that will not
    // come; the harness kills the process after 3 s, and `--profile` needs a clean exit to
    // write the profile. The measurement is over by now: 1 s is all the goodbye it gets.
    setTimeout(() => process.exit(0), 1_000).unref();
    void floor.stop().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
