import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { bodyCost } from './body/body-cost';
import { numberFlag } from './config/number-flag';

/**
 * `npm run bench:body`: µs to build one campaign request's body, as `campaignBody` does it now
 * and as it did before (`bench/body/body-cost.ts`). Options: `--recipients N` (default 1000),
 * `--rounds N` (default 7), `--seconds S` per round (default 1). See docs/benchmark.md.
 */
async function main(): Promise<void> {
  const recipients = numberFlag('recipients', 1000);
  const rounds = numberFlag('rounds', 7);
  const seconds = numberFlag('seconds', 1);
  const { bytes, before, after } = await bodyCost(recipients, rounds, seconds);
  console.log(`| recipients | body bytes | before (µs) | after (µs) | speed-up |`);
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  console.log(
    `| ${recipients} | ${bytes} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${(before / after).toFixed(1)}× |`,
  );
  console.log(
    `\n${rounds} rounds of ${seconds} s each, alternating; Node ${process.version}, ` +
      `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load average ${loadavg()[0].toFixed(2)}.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
