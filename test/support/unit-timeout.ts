// Unit specs share the two cores with the integration specs running beside them (jest.config.js
// maxWorkers) and, in CI, with stress-ng: a spec that settles a fake clock through a day of
// one-second looks is seconds of CPU, past jest's 5 s default on a busy machine. A unit spec that
// waits on real time bounds that wait itself; this bounds only a hang.
jest.setTimeout(30_000);
