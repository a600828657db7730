/**
 * A claim was taken over by another holder before its request was written (this instance was
 * taken for dead: its heartbeat lapsed). Nothing was sent; the action must claim again, and
 * will then find the new holder running it or its outcome.
 */
export class ClaimLostError extends Error {
  override name = 'ClaimLostError';
  constructor(readonly key: string) {
    super(`claim on ${key} was taken over before sending; claiming again`);
  }
}
