import type { WaitView } from './liveness.check';

/** One dependency: its name and why it is unreachable now (undefined while it answers). */
export interface Dependency {
  name: string;
  problem(): string | undefined;
}

/**
 * What the health endpoints know of the dependencies: readiness asks for the current problems,
 * and liveness is told when they go and come back (sampled every `intervalMs`), so that waiting
 * for a dependency does not count as a stall.
 */
export class DependencyStatus implements WaitView {
  private readonly listeners: Array<(available: boolean) => void> = [];
  private wasAvailable = true;
  private timer?: NodeJS.Timeout;

  constructor(private readonly dependencies: Dependency[]) {}

  /** One line per unreachable dependency, naming it and the cause. */
  problems(): string[] {
    return this.dependencies.flatMap((dependency) => {
      const cause = dependency.problem();
      return cause === undefined ? [] : [`${dependency.name} is unreachable: ${cause}`];
    });
  }

  get available(): boolean {
    return this.problems().length === 0;
  }

  onChange(listener: (available: boolean) => void): void {
    this.listeners.push(listener);
  }

  /** Compares with the last sample and tells the listeners of a change. */
  sample(): void {
    const available = this.available;
    if (available === this.wasAvailable) return;
    this.wasAvailable = available;
    for (const listener of this.listeners) listener(available);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
