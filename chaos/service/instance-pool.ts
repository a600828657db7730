import { startNode, type StartedChild } from '../../bench/infra/child-process';
import { sleep } from '../../bench/infra/bench-kafka';
import { peakRssKb, scrapeCounters, type InstanceCounters } from './instance-probe';

export interface Termination {
  at: number;
  slot: string;
  pid: number;
  reason: string;
  /** From SIGTERM to the process's end. */
  exitMs: number;
  /** Exit code, or the signal that ended it ("SIGKILL" when it had to be killed). */
  exit: string;
}

export interface Kill {
  at: number;
  slot: string;
  pid: number;
  restartAfterMs: number;
}

interface Slot {
  name: string;
  port: number;
  proc?: StartedChild;
  startedAt: number;
  starts: number;
  /** Should be running: an unexpected exit is restarted, as an orchestrator would. */
  desired: boolean;
  restartTimer?: NodeJS.Timeout;
  /** Set when the harness ends the process, so its exit is not taken for a crash. */
  ending: boolean;
  peakRssKb: number;
}

export interface PoolOptions {
  script: string;
  /** Node's own flags before the script: the image's (`bench/infra/image-runtime.ts`). */
  nodeArgs: string[];
  logDir: string;
  env: (slot: string, port: number) => Record<string, string>;
  shutdownTimeoutMs: number;
  log: (message: string) => void;
}

/** Every pool of this process, so that an interrupted run can stop them all from starting more. */
const pools = new Set<InstancePool>();

/** Beyond the shutdown bound, a process that still runs is killed and reported as such. */
const HARD_STOP_MARGIN_MS = 30_000;

/**
 * The service replicas of a run, each `node dist/main.js` in its own process with its own
 * HTTP port and log file, all in one consumer group. The pool is their orchestrator: it kills,
 * stops, restarts and watches them, and remembers what it did.
 */
export class InstancePool {
  readonly kills: Kill[] = [];
  readonly terminations: Termination[] = [];
  readonly crashes: Array<{ at: number; slot: string; exit: string }> = [];
  /** Last counters read from each process (by pid): a killed process keeps its last reading. */
  readonly counters = new Map<number, Partial<InstanceCounters>>();
  private readonly slots = new Map<string, Slot>();
  private timers: NodeJS.Timeout[] = [];
  private halted = false;

  /** On Ctrl-C: no pool starts another process (a pending restart included), then kill them. */
  static haltAll(): void {
    for (const pool of pools) {
      pool.halted = true;
      pool.stopWatching();
    }
  }

  constructor(
    names: string[],
    basePort: number,
    private readonly options: PoolOptions,
  ) {
    pools.add(this);
    names.forEach((name, i) =>
      this.slots.set(name, {
        name,
        port: basePort + i,
        startedAt: 0,
        starts: 0,
        desired: false,
        ending: false,
        peakRssKb: 0,
      }),
    );
  }

  /** Peak RSS and counters are read all along, not only at the end. */
  startWatching(): void {
    this.timers.push(setInterval(() => this.sampleRss(), 1_000));
    this.timers.push(setInterval(() => void this.scrapeAll(), 5_000));
  }

  /** Slots with a running process, oldest first; `minAgeMs` skips ones still starting. */
  live(minAgeMs = 0): string[] {
    const now = Date.now();
    return [...this.slots.values()]
      .filter((s) => s.proc && !s.ending && now - s.startedAt >= minAgeMs)
      .sort((x, y) => x.startedAt - y.startedAt)
      .map((s) => s.name);
  }

  /** Starts the slot now unless it runs or a restart is already pending. */
  ensureUp(name: string): void {
    const slot = this.slot(name);
    slot.desired = true;
    if (slot.proc || slot.restartTimer) return;
    this.launch(slot);
  }

  /** kill -9, and start again after `restartAfterMs`. */
  async kill(name: string, restartAfterMs: number): Promise<void> {
    const slot = this.slot(name);
    const proc = slot.proc;
    if (!proc || slot.ending) return;
    slot.ending = true;
    this.noteRss(slot);
    this.kills.push({ at: Date.now(), slot: name, pid: proc.pid, restartAfterMs });
    proc.child.kill('SIGKILL');
    await proc.exited;
    this.scheduleRestart(slot, restartAfterMs);
  }

  /**
   * SIGTERM, timed to the process's end; killed if it outlives the bound by far. With
   * `restartAfterMs` the slot comes back; without, it stays down (a replica scaled away).
   */
  async terminate(
    name: string,
    reason: string,
    restartAfterMs?: number,
  ): Promise<Termination | undefined> {
    const slot = this.slot(name);
    const proc = slot.proc;
    if (!proc || slot.ending) return undefined;
    slot.ending = true;
    if (restartAfterMs === undefined) slot.desired = false;
    this.noteRss(slot);
    await this.scrape(slot);
    this.noteRss(slot);
    const started = Date.now();
    proc.child.kill('SIGTERM');
    const hardStop = setTimeout(
      () => proc.child.kill('SIGKILL'),
      this.options.shutdownTimeoutMs + HARD_STOP_MARGIN_MS,
    );
    const exit = await proc.exited;
    clearTimeout(hardStop);
    const record = {
      at: started,
      slot: name,
      pid: proc.pid,
      reason,
      exitMs: Date.now() - started,
      exit,
    };
    this.terminations.push(record);
    this.options.log(`${name} (pid ${proc.pid}) ${reason}: exit ${exit} after ${record.exitMs} ms`);
    if (restartAfterMs !== undefined) this.scheduleRestart(slot, restartAfterMs);
    return record;
  }

  /** The slot stays down: a pending restart is dropped (a replica scaled away while it was dead). */
  retire(name: string): void {
    const slot = this.slot(name);
    slot.desired = false;
    clearTimeout(slot.restartTimer);
    slot.restartTimer = undefined;
  }

  /** Stops every running instance at once, as a rolling shutdown would not: the harsher case. */
  async terminateAll(reason: string): Promise<void> {
    for (const slot of this.slots.values()) {
      slot.desired = false;
      clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
    }
    await Promise.all(this.live().map((name) => this.terminate(name, reason)));
  }

  /** Waits until no restart is pending (after the last fault, before the drain). */
  async settle(): Promise<void> {
    while ([...this.slots.values()].some((s) => s.restartTimer)) await sleep(100);
  }

  peakRssMb(): Record<string, number> {
    this.sampleRss();
    return Object.fromEntries(
      [...this.slots.values()].map((s) => [s.name, Math.round(s.peakRssKb / 1024)]),
    );
  }

  starts(): Record<string, number> {
    return Object.fromEntries([...this.slots.values()].map((s) => [s.name, s.starts]));
  }

  stopWatching(): void {
    for (const timer of this.timers) clearInterval(timer);
    for (const slot of this.slots.values()) clearTimeout(slot.restartTimer);
    pools.delete(this);
  }

  private launch(slot: Slot): void {
    if (this.halted) return;
    slot.starts++;
    slot.ending = false;
    slot.startedAt = Date.now();
    const proc = startNode(
      `${slot.name}-${slot.starts}`,
      this.options.script,
      this.options.env(slot.name, slot.port),
      { logDir: this.options.logDir, nodeArgs: this.options.nodeArgs },
    );
    slot.proc = proc;
    void proc.exited.then((exit) => {
      if (slot.proc !== proc) return;
      slot.proc = undefined;
      if (slot.ending || this.halted) return;
      // Not ended by the harness: a crash (or a config error) the orchestrator restarts.
      this.crashes.push({ at: Date.now(), slot: slot.name, exit });
      this.options.log(
        `${slot.name} (pid ${proc.pid}) exited by itself: ${exit}; see ${proc.logFile}`,
      );
      if (slot.desired) this.scheduleRestart(slot, 1_000);
    });
  }

  private scheduleRestart(slot: Slot, afterMs: number): void {
    if (!slot.desired) return;
    clearTimeout(slot.restartTimer);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (slot.desired && !slot.proc) this.launch(slot);
    }, afterMs);
  }

  private sampleRss(): void {
    for (const slot of this.slots.values()) this.noteRss(slot);
  }

  private noteRss(slot: Slot): void {
    if (!slot.proc) return;
    slot.peakRssKb = Math.max(slot.peakRssKb, peakRssKb(slot.proc.pid) ?? 0);
  }

  private async scrapeAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => this.scrape(slot)));
  }

  private async scrape(slot: Slot): Promise<void> {
    const pid = slot.proc?.pid;
    if (pid === undefined) return;
    const reading = await scrapeCounters(slot.port);
    if (Object.keys(reading).length > 0) this.counters.set(pid, reading);
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no instance slot ${name}`);
    return slot;
  }
}
