import { floorLaunch } from './phase-process';

describe('floorLaunch', () => {
  const runtime = {
    nodeOptions: '--max-old-space-size=128 --max-semi-space-size=8',
    nodeFlags: ['--heap-growing-percent=100'],
  };

  it("starts pipeline-floor-bounded with the image's heap limit and node flags", () => {
    expect(
      floorLaunch('pipeline-floor-bounded', 'user.pipeline-floor-bounded.r1', undefined, runtime),
    ).toEqual({
      env: { NODE_OPTIONS: '--max-old-space-size=128 --max-semi-space-size=8' },
      nodeArgs: ['--heap-growing-percent=100'],
    });
  });

  it("starts pipeline-floor with node's defaults", () => {
    expect(floorLaunch('pipeline-floor', 'user.pipeline-floor.r1', undefined, runtime)).toEqual({
      env: {},
      nodeArgs: [],
    });
  });

  it('profiles either floor into the folder given, named by its run', () => {
    for (const phase of ['pipeline-floor', 'pipeline-floor-bounded'] as const) {
      const { nodeArgs } = floorLaunch(phase, `user.${phase}.r2`, '/profiles/floors', runtime);
      expect(nodeArgs.slice(-3)).toEqual([
        '--cpu-prof',
        '--cpu-prof-dir=/profiles/floors',
        `--cpu-prof-name=user.${phase}.r2.cpuprofile`,
      ]);
    }
  });

  it("reads this repository's Dockerfile when not given a runtime", () => {
    const { env } = floorLaunch('pipeline-floor-bounded', 'user.pipeline-floor-bounded.r1');
    expect(env.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
  });
});
