import { windowHeapWarning } from './window-heap';

const MiB = 2 ** 20;
/**
 * The heap limit the estimate's figures were measured under (128 MB old space, 4 MB
 * semi-spaces: the image's flags then; its semi-spaces are 8 MB now, a limit of 152 MB).
 */
const MEASURED_HEAP = 140 * MiB;

describe(windowHeapWarning.name, () => {
  it('passes the windows that drained at full rate under that heap', () => {
    expect(windowHeapWarning(2_000, MEASURED_HEAP)).toBeUndefined();
    expect(windowHeapWarning(3_000, MEASURED_HEAP)).toBeUndefined();
  });

  it('warns of the windows that ran out of memory, and says what fits', () => {
    expect(windowHeapWarning(4_000, MEASURED_HEAP)).toBe(
      'CONSUMER_MAX_IN_FLIGHT=4000 needs about 119 MB of live heap at a full window, more than ' +
        '70 % of the heap limit (140 MB): a backlog would keep the garbage collector busy or run ' +
        'out of memory. Lower CONSUMER_MAX_IN_FLIGHT to 3114 or less, or raise the heap limit ' +
        '(NODE_OPTIONS --max-old-space-size) to give a heap of about 170 MB',
    );
    expect(windowHeapWarning(5_000, MEASURED_HEAP)).toMatch(/^CONSUMER_MAX_IN_FLIGHT=5000 needs/);
  });

  it('lets a larger heap take a larger window', () => {
    expect(windowHeapWarning(5_000, 210 * MiB)).toBeUndefined();
    expect(windowHeapWarning(10_000, 210 * MiB)).toMatch(/a heap of about 371 MB$/);
  });

  it('asks only for a larger heap when the service alone fills it', () => {
    expect(windowHeapWarning(1, 32 * MiB)).toMatch(/memory\. Raise the heap limit/);
  });
});
