import { parseOptions } from '../config/chaos-options';
import { clusterSetup } from './markdown';

describe("a cluster run's setup line", () => {
  it('describes the scenarios the run ran, and no other', () => {
    const setup = clusterSetup(parseOptions(['--cluster', '--scenario', 'redis-cluster-failover']));
    expect(setup).toMatch(/scenario redis-cluster-failover: on a Redis Cluster/);
    expect(setup).not.toMatch(/broker-loss|redis-failover:|Sentinel/);
  });

  it('names the Sentinels for the two scenarios that run on them', () => {
    const setup = clusterSetup(parseOptions(['--cluster']));
    expect(setup).toMatch(
      /scenario broker-loss: on a Redis primary with two replicas under three Sentinels/,
    );
    expect(setup).toMatch(/scenario redis-failover: on a Redis primary/);
    expect(setup).not.toMatch(/Redis Cluster/);
  });
});
