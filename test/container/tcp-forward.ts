// The placeholders of docker-compose.host.yml: `node tcp-forward.ts LISTEN TARGET` (host:port each;
// Node 24 runs the file as it is) accepts connections on LISTEN and pipes each to TARGET, logging
// one line per connection so the test can tell that mailbridge reached the service by the name
// docker-compose.yml gives it.
import { connect, createServer } from 'node:net';

const [listen, target] = process.argv.slice(2).map((address) => {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
});
const server = createServer((client) => {
  console.log(`connection from ${client.remoteAddress}:${client.remotePort}`);
  const upstream = connect(target.port, target.host);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(listen.port, listen.host, () => {
  console.log(`forwarding ${listen.host}:${listen.port} to ${target.host}:${target.port}`);
});
process.on('SIGTERM', () => process.exit(0));
