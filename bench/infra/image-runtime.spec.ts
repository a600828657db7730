import { imageRuntime } from './image-runtime';

describe('imageRuntime', () => {
  it('reads the heap limits and the node flags the image runs the service with', () => {
    const runtime = imageRuntime(
      [
        'FROM node:24-bookworm-slim',
        'ENV NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8"',
        'HEALTHCHECK --interval=10s \\',
        '  CMD node -e "process.exit(0)"',
        'CMD ["node", "--heap-growing-percent=100", "dist/main.js"]',
      ].join('\n'),
    );
    expect(runtime).toEqual({
      nodeOptions: '--max-old-space-size=128 --max-semi-space-size=8',
      nodeFlags: ['--heap-growing-percent=100'],
    });
  });

  it('reads this repository’s Dockerfile: heap limits in NODE_OPTIONS, every node flag a flag', () => {
    const { nodeOptions, nodeFlags } = imageRuntime();
    expect(nodeOptions).toMatch(/--max-old-space-size=\d+/);
    for (const flag of nodeFlags) expect(flag).toMatch(/^--[a-z-]+(=\S+)?$/);
  });

  it('refuses a Dockerfile whose service it cannot start the same way', () => {
    const env = 'ENV NODE_OPTIONS=--max-old-space-size=128\n';
    expect(() => imageRuntime(env + 'CMD ["npm", "start"]')).toThrow(/CMD is not/);
    expect(() => imageRuntime(env + 'CMD node dist/main.js')).toThrow(/CMD is not/);
    expect(() => imageRuntime('CMD ["node", "dist/main.js"]')).toThrow(/no NODE_OPTIONS/);
  });
});
