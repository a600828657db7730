import type { Admin } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import { endOffsets, groupLag } from '../observe/group-lag';
import { actionKey, type ResultCollector } from '../observe/result-collector';
import type { ExpectedAction } from '../traffic/chaos-workload';

/** Actions that have no result yet (a dead letter answers every template of its event). */
export function missingResults(expected: ExpectedAction[], collector: ResultCollector): number {
  let missing = 0;
  for (const action of expected) {
    if (
      !collector.byAction.has(actionKey(action.eventId, action.template)) &&
      !collector.byAction.has(actionKey(action.eventId, '*'))
    ) {
      missing++;
    }
  }
  return missing;
}

/**
 * Waits until every action has a result, or the deadline; reports progress every 10 s. Returns
 * whether everything arrived.
 */
export async function waitForResults(
  expected: ExpectedAction[],
  collector: ResultCollector,
  deadlineMs: number,
  say: (message: string) => void,
): Promise<boolean> {
  let lastSaid = Date.now();
  for (;;) {
    const missing = missingResults(expected, collector);
    if (missing === 0) return true;
    if (Date.now() > deadlineMs) {
      say(`drain deadline passed with ${missing} actions still without a result`);
      return false;
    }
    if (Date.now() - lastSaid >= 10_000) {
      say(`draining: ${missing} of ${expected.length} actions still without a result`);
      lastSaid = Date.now();
    }
    await sleep(500);
  }
}

/** Polls the group's lag until it is 0 or `timeoutMs` passed; returns the last reading. */
export async function settleLag(
  admin: Admin,
  groupId: string,
  topics: string[],
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let lag = -1;
  for (;;) {
    lag = await groupLag(admin, groupId, topics).catch(() => lag);
    if (lag === 0 || Date.now() > deadline) return lag;
    await sleep(1_000);
  }
}

/** Waits until the collector has read every result topic to its current end. */
export async function catchUp(
  admin: Admin,
  collector: ResultCollector,
  topics: string[],
  timeoutMs: number,
): Promise<boolean> {
  const ends = await endOffsets(admin, topics);
  const deadline = Date.now() + timeoutMs;
  while (!collector.caughtUp(ends)) {
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
  return true;
}
