import { parseOptions, scenarioCounts } from './chaos-options';

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

describe('chaos options of a --cluster run', () => {
  it('runs both cluster scenarios on their own ports, with a smaller load and no restarts', () => {
    expect(parseOptions(['--cluster'])).toMatchObject({
      cluster: true,
      scenarios: ['broker-loss', 'redis-failover'],
      brokerKills: 1,
      redisFailovers: 2,
      brokerRestarts: 0,
      redisRestarts: 0,
      rate: 50,
      signups: 5400,
      orders: 600,
      kills: 8,
      scaleCycles: 1,
      clusterPorts: { kafka: 24600, redis: 24700, sentinel: 24710, redisCluster: 22720 },
      httpBasePort: 24801,
    });
  });

  it('takes the smoke sizes with --smoke, and one scenario when asked', () => {
    const options = parseOptions(['--cluster', '--smoke', '--scenario', 'redis-failover']);
    expect(options).toMatchObject({
      scenarios: ['redis-failover'],
      redisFailovers: 1,
      signups: 900,
      kills: 3,
    });
  });

  it('runs the Redis Cluster scenario when asked, or with every other one under all', () => {
    expect(parseOptions(['--cluster', '--scenario', 'redis-cluster-failover']).scenarios).toEqual([
      'redis-cluster-failover',
    ]);
    expect(parseOptions(['--cluster', '--scenario', 'all']).scenarios).toEqual([
      'broker-loss',
      'redis-failover',
      'redis-cluster-failover',
    ]);
  });

  it('refuses the single-node faults, --graceful and an unknown scenario', () => {
    expect(() => parseOptions(['--cluster', '--broker-restarts', '2'])).toThrow(
      /no broker or Redis restarts/,
    );
    expect(() => parseOptions(['--cluster', '--graceful'])).toThrow(/do not go together/);
    expect(() => parseOptions(['--cluster', '--scenario', 'zookeeper'])).toThrow(/unknown/);
    expect(() => parseOptions(['--scenario', 'broker-loss'])).toThrow(/needs --cluster/);
  });

  it('leaves the single-node mode on its ports with its one scenario', () => {
    expect(parseOptions([])).toMatchObject({
      cluster: false,
      scenarios: ['single'],
      httpBasePort: 38301,
      kafkaPort: 39392,
    });
  });
});

describe('the cluster faults of each scenario', () => {
  it('plays broker kills only in broker-loss and Redis failovers only in redis-failover', () => {
    const options = parseOptions(['--cluster', '--broker-kills', '3', '--redis-failovers', '4']);
    expect(scenarioCounts(options, 'broker-loss')).toEqual({ brokerKills: 3, redisFailovers: 0 });
    expect(scenarioCounts(options, 'redis-failover')).toEqual({
      brokerKills: 0,
      redisFailovers: 4,
    });
    expect(scenarioCounts(options, 'redis-cluster-failover')).toEqual({
      brokerKills: 0,
      redisFailovers: 4,
    });
    expect(scenarioCounts(parseOptions([]), 'single')).toEqual({
      brokerKills: 0,
      redisFailovers: 0,
    });
  });
});
