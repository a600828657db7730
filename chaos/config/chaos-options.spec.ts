import { parseOptions } from './chaos-options';

describe('chaos options of a graceful round', () => {
  it('restarts neither the broker nor Redis unless told to, and keeps the kills to replay', () => {
    const options = parseOptions(['--smoke', '--graceful']);
    expect(options).toMatchObject({
      graceful: true,
      kills: 3,
      brokerRestarts: 0,
      redisRestarts: 0,
    });
  });

  it('takes explicit broker and Redis restarts as given', () => {
    const options = parseOptions(['--graceful', '--broker-restarts', '2', '--redis-restarts', '1']);
    expect(options).toMatchObject({ graceful: true, brokerRestarts: 2, redisRestarts: 1 });
  });

  it('leaves a normal round as it was', () => {
    expect(parseOptions([])).toMatchObject({
      graceful: false,
      brokerRestarts: 3,
      redisRestarts: 1,
    });
    expect(parseOptions(['--smoke'])).toMatchObject({ brokerRestarts: 1, redisRestarts: 1 });
  });
});
