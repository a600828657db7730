import { existsSync, readFileSync } from 'node:fs';
import type { Admin } from 'kafkajs';

/**
 * Counts the group's rebalances two ways: what the broker's group coordinator logged (exact), and
 * membership changes seen by polling the group every second (a floor: a member that joins and
 * leaves within a second is missed).
 */
export class RebalanceWatch {
  membershipChanges = 0;
  private last?: string;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    /** One broker's log, or every node's of a cluster (each coordinates the group for a while). */
    private readonly brokerLogs: string[],
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), 1_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * From the broker's log: rebalances of this group that began ("Preparing to rebalance") and
   * generations that completed ("Stabilized"). Many begun and few completed means the group
   * spent the run rebalancing instead of working.
   */
  fromBrokerLog(): { started: number; stabilized: number } {
    const lines = this.brokerLogs
      .filter((log) => existsSync(log))
      .flatMap((log) => readFileSync(log, 'utf8').split('\n'));
    const count = (needle: string) => lines.filter((line) => line.includes(needle)).length;
    return {
      started: count(`Preparing to rebalance group ${this.groupId} `),
      stabilized: count(`Stabilized group ${this.groupId} generation`),
    };
  }

  private async poll(): Promise<void> {
    try {
      const { groups } = await this.admin.describeGroups([this.groupId]);
      const members = (groups[0]?.members ?? [])
        .map((m) => m.memberId)
        .sort()
        .join(',');
      if (this.last !== undefined && members !== this.last) this.membershipChanges++;
      this.last = members;
    } catch {
      // The broker is restarting: the next poll sees where the group went.
    }
  }
}
