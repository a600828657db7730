// Every integration spec talks to a real broker and a real Redis, so its default timeout is above
// waitFor's own 30 s: a slow wait then fails saying what it waited for. jest's 5 s default (a
// `testTimeout` set per project is ignored by jest 30) failed a spec of 10,000 Redis round trips,
// 1.2-1.6 s on an idle host, in CI beside stress-ng. A spec that needs longer sets its own.
jest.setTimeout(60_000);
