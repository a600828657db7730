/**
 * Which top-level folder of src/ may import which: the data's path, written down once.
 * inbound → dispatch → (templates, delivery → email-api, idempotency, outbound). A folder may
 * always import its own files and npm packages; src/*.ts (the composition root) may import all.
 * `npm run lint:deps` checks it (CI runs it); the README's architecture section shows the same.
 */
const MAY_IMPORT = {
  contracts: [],
  config: ['contracts'],
  metrics: [],
  logging: ['config'],
  tracing: [],
  kafka: ['config'],
  // metrics: the client reports each attempt's duration and each retry; metrics imports nothing.
  'email-api': ['config', 'metrics'],
  templates: ['config', 'contracts', 'email-api'],
  // The one Redis connection, its health and the loading of the Lua scripts.
  redis: ['config'],
  idempotency: ['config', 'contracts', 'redis'],
  // The suppression list (keyed hashes of addresses) in the shared store.
  suppression: ['config', 'contracts', 'email-api', 'redis'],
  // What replicas share through Redis: the vendor request budget and the gate.
  cluster: ['config', 'contracts', 'metrics', 'email-api', 'idempotency', 'redis'],
  // Contact-list windows: their stores, naming, the placement of an order's member, and the
  // closer that creates a due list through delivery and publishes its orders' results.
  windows: [
    'config',
    'contracts',
    'metrics',
    'email-api',
    'idempotency',
    'templates',
    'delivery',
    'outbound',
    'redis',
    'suppression',
  ],
  delivery: [
    'config',
    'contracts',
    'metrics',
    'tracing',
    'email-api',
    'idempotency',
    'templates',
    'cluster',
    'suppression',
  ],
  outbound: ['config', 'contracts', 'kafka', 'tracing'],
  dispatch: [
    'config',
    'contracts',
    'metrics',
    'templates',
    'delivery',
    'idempotency',
    'outbound',
    'windows',
    'suppression',
    'unsubscribe',
  ],
  inbound: ['config', 'contracts', 'metrics', 'tracing', 'kafka', 'dispatch', 'outbound'],
  health: ['config', 'inbound', 'delivery', 'idempotency', 'kafka', 'cluster'],
  // One-click unsubscribe: its public listener, tokens and outbox; its events go out through
  // outbound, its outbox lives in Redis, its suppressions in the suppression list; email-api for
  // the recipient type its links are added to; metrics for the registry its counters join.
  unsubscribe: ['config', 'contracts', 'email-api', 'metrics', 'outbound', 'redis', 'suppression'],
  // The AsyncAPI document: the contracts' schemas under the configured topic names, and its route.
  asyncapi: ['config', 'contracts'],
  // The local stand-in for the vendor, and command-line tools: beside the service, not in it.
  sandbox: ['config', 'email-api'],
  // redrive reads the service's own settings (config) and connects as the service does, TLS,
  // SASL and OAuth included (kafka's client factory): one definition of both, not a copy.
  // preview renders the service's templates, reads an event with its parser (inbound) and
  // merges as the sandbox does: what an author sees is what is sent and what the inbox shows.
  tools: ['contracts', 'asyncapi', 'config', 'kafka', 'templates', 'inbound', 'sandbox'],
};

const folders = Object.keys(MAY_IMPORT);

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Files must not import each other in a circle, within a folder or across folders.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...folders.map((folder) => ({
      name: `${folder}-imports`,
      comment: `src/${folder}/ may import only: ${MAY_IMPORT[folder].join(', ') || 'nothing outside itself'}`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: {
        path: '^src/',
        pathNot: [`^src/(${[folder, ...MAY_IMPORT[folder]].join('|')})/`],
      },
    })),
    {
      name: 'no-unknown-folder',
      comment: 'A new top-level folder gets its line in MAY_IMPORT before anything imports it.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/', pathNot: [`^src/(${folders.join('|')})/`, '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'nothing-imports-the-root',
      comment: 'src/*.ts compose the service; no folder imports them back.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.spec\\.ts$' },
  },
};
