import { Writable } from 'node:stream';

/**
 * A destination for the service's log lines (`PipelineFixture.startService(env, { logTo })`),
 * kept in memory for the test to read: pino writes to file descriptor 1 directly, so patching
 * `process.stdout` would not see them. `into`: an array to add the lines to, shared with other
 * output the test collects.
 */
export function logCapture(into: string[] = []): { destination: Writable; text: () => string } {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      into.push(chunk.toString());
      done();
    },
  });
  return { destination, text: () => into.join('') };
}
