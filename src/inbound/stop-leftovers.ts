/** The dependencies a record and a commit need, each unreachable one named with its cause. */
export interface Dependencies {
  problems(): string[];
}

/** How often a stop waiting for in-flight records asks whether a dependency went away. */
const DEPENDENCY_CHECK_MS = 200;

/**
 * Resolves when `work` does, or as soon as a dependency is unreachable: the records still
 * running then wait for it (a claim or an outcome for Redis, a result for the broker) and would
 * hold the stop to its bound. They stay uncommitted; the partition's next owner reads them again.
 */
export async function doneOrDependencyAway(
  work: Promise<void>,
  dependencies: Dependencies | undefined,
): Promise<void> {
  if (!dependencies) return work;
  let timer: NodeJS.Timeout | undefined;
  const away = new Promise<void>((resolve) => {
    const check = () => {
      if (dependencies.problems().length > 0) resolve();
      else timer = setTimeout(check, DEPENDENCY_CHECK_MS);
    };
    check();
  });
  try {
    await Promise.race([work, away]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a stop left to the group's next owner, and why. */
export interface Leftovers {
  /** Records without an outcome: given back during the stop, or still running at its end. */
  records: number;
  /** Partitions whose finished offsets the broker did not take, and how the commit ended. */
  partitions: number;
  commit?: string;
  /** Each unreachable dependency with its cause; a wait that timed out. */
  why: string[];
}

/**
 * The one warn line of a stop that left work uncommitted: records without an outcome, and
 * finished offsets the broker did not take (their records are read again and their results
 * published again). Undefined when the stop left nothing.
 */
export function leftoversLine({ records, partitions, commit, why }: Leftovers): string | undefined {
  const left: string[] = [];
  if (records > 0) left.push(`${records} record(s) without an outcome`);
  if (partitions > 0)
    left.push(`the finished offsets of ${partitions} partition(s) (commit ${commit})`);
  if (left.length === 0) return undefined;
  const reasons = why.length > 0 ? `; ${why.join('; ')}` : '';
  return `stop: left uncommitted for the group's next owner: ${left.join(' and ')}${reasons}`;
}
