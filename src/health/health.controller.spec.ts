import { ServiceUnavailableException } from '@nestjs/common';
import type { GateState, VendorGate } from '../delivery/vendor.gate';
import { ConsumerStatus } from '../inbound/consumer-status';
import { DependencyStatus } from './dependency-status';
import { HealthController } from './health.controller';
import type { LivenessCheck } from './liveness.check';

/** A joined consumer and answering dependencies: only the gate decides readiness here. */
function readinessWith(state: GateState): () => unknown {
  const consumer = new ConsumerStatus();
  consumer.markJoined();
  const controller = new HealthController(
    consumer,
    { state } as unknown as VendorGate,
    { alsoWaitFor: () => undefined } as unknown as LivenessCheck,
    new DependencyStatus([]), // every dependency answers
  );
  return () => controller.ready();
}

function reasonOf(ready: () => unknown): string {
  try {
    ready();
  } catch (error) {
    if (error instanceof ServiceUnavailableException) {
      return (error.getResponse() as { reason: string }).reason;
    }
    throw error;
  }
  throw new Error('readiness answered 200');
}

describe('HealthController readiness and the vendor gate', () => {
  const until = Date.now() + 60_000;

  it('is 503 while the gate is closed because the vendor refused the keys, on this replica or a peer', () => {
    expect(reasonOf(readinessWith({ open: false, reason: 'auth', until, origin: 'self' }))).toBe(
      'the vendor refused the credentials; consumption is paused',
    );
    expect(reasonOf(readinessWith({ open: false, reason: 'auth', until, origin: 'peer' }))).toBe(
      'the vendor refused the credentials (reported by a peer replica); consumption is paused',
    );
  });

  it('stays ready while the gate is closed for a vendor outage, and when it is open', () => {
    for (const origin of ['self', 'peer'] as const) {
      expect(readinessWith({ open: false, reason: 'outage', until, origin })()).toEqual({
        status: 'ready',
      });
    }
    expect(readinessWith({ open: true })()).toEqual({ status: 'ready' });
  });
});
