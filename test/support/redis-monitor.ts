import { connect } from 'node:net';

/**
 * Redis' MONITOR feed on a socket of its own: `onCommand` gets each command Redis runs, its name
 * and arguments as Redis quotes them (`["hget", "<key>", "<field>"]`), and who ran it
 * (`0 127.0.0.1:38902`, or `0 lua` for a command a script ran). Resolves once Redis has
 * answered MONITOR, so every command after that is seen; `stop()` closes the socket. `password`:
 * sent with AUTH first, for a Redis that requires one.
 *
 * Not ioredis' `monitor()`: ioredis 6.0 starts reading the feed only once MONITOR's reply has
 * passed through a promise, so a command another client runs at that moment (any client of
 * the shared Redis, or the ready check of ioredis' own next connection) arrives as the reply
 * to nothing, and ioredis throws "Command queue state error" (it failed a CI run so).
 */
export function monitorRedis(
  onCommand: (args: string[], source: string) => void,
  port = 6379,
  host = '127.0.0.1',
  password?: string,
): Promise<{ stop(): void }> {
  return new Promise((resolve, reject) => {
    const auth = password === undefined ? '' : `AUTH ${JSON.stringify(password)}\r\n`;
    const socket = connect(port, host, () => socket.write(`${auth}MONITOR\r\n`));
    let pending = '';
    let started = false;
    let authenticated = password === undefined;
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\r\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!authenticated) {
          if (line !== '+OK') reject(new Error(`AUTH answered ${line}`));
          authenticated = true;
          continue;
        }
        if (!started) {
          if (line !== '+OK') reject(new Error(`MONITOR answered ${line}`));
          started = true;
          resolve({ stop: () => socket.destroy() });
          continue;
        }
        // +1795799623.407698 [0 127.0.0.1:38902] "hget" "key" "field"
        const quoted = line.slice(line.indexOf('] ') + 2).matchAll(/"((?:[^"\\]|\\.)*)"/g);
        const source = line.slice(line.indexOf('[') + 1, line.indexOf('] '));
        onCommand(
          [...quoted].map(([, text]) => text.replace(/\\(["\\])/g, '$1')),
          source,
        );
      }
    });
  });
}
