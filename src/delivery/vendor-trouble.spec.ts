import type { AppConfig } from '../config/app-config';
import {
  VendorAuthError,
  VendorError,
  VendorNetworkError,
  VendorRequestError,
  VendorResponseError,
  VendorWithheldError,
} from '../email-api/vendor.errors';
import { MetricsService } from '../metrics/metrics.service';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { VendorGate } from './vendor.gate';
import { ambiguousFailure, failedOutcome, failureCode, VendorTrouble } from './vendor-trouble';

const rejected = (status = 422) => new VendorError(`vendor answered ${status}`, false, status);
const unavailable = () => new VendorError('vendor answered 503', true, 503);

describe(VendorTrouble.name, () => {
  const config = (policy: 'resend' | 'fail') =>
    ({
      batching: { pauseOnAuthFailureMs: 60_000, pauseOnVendorFailureMs: 30_000 },
      idempotency: { ambiguousSendPolicy: policy },
    }) as unknown as AppConfig;
  let gate: VendorGate;
  let metrics: MetricsService;
  let trouble: VendorTrouble;
  beforeEach(() => {
    gate = new VendorGate();
    metrics = new MetricsService();
    trouble = new VendorTrouble(config('resend'), gate, metrics);
  });
  afterEach(() => gate.close());

  const pauses = async () =>
    (await metrics.registry.getSingleMetric('mailbridge_vendor_pauses_total')!.get()).values.map(
      (v) => [v.labels.reason, v.value],
    );

  it('returns a permanent refusal, to end the action, and leaves the gate open', async () => {
    const error = rejected(404);
    expect(trouble.finalOrPaused(error)).toBe(error);
    expect(gate.state.open).toBe(true);
    expect(trouble.passable).toBe(true);
    expect(await pauses()).toEqual([]);
  });

  it('pauses for trouble time can cure, closing the gate once for its cause', async () => {
    expect(trouble.finalOrPaused(unavailable())).toBeUndefined();
    expect(gate.state).toMatchObject({ open: false, reason: 'outage' });
    expect(trouble.passable).toBe(false);
    expect(trouble.finalOrPaused(unavailable())).toBeUndefined(); // extends; not a new pause
    expect(await pauses()).toEqual([['outage', 1]]);
  });

  it('pauses for an auth refusal for the auth pause, whatever came before', async () => {
    trouble.pauseFor(new VendorAuthError(401));
    expect(gate.state).toMatchObject({ open: false, reason: 'auth' });
    expect(await pauses()).toEqual([['auth', 1]]);
  });

  it('throws on what is not the vendor’s, for its caller to give the action back', () => {
    const lost = new ClaimLostError('k');
    expect(() => trouble.finalOrPaused(lost)).toThrow(lost);
    expect(gate.state.open).toBe(true);
  });

  it('says whether a send of unknown fate fails as ambiguous, by AMBIGUOUS_SEND_POLICY', () => {
    expect(trouble.failsAmbiguous).toBe(false);
    expect(new VendorTrouble(config('fail'), gate, metrics).failsAmbiguous).toBe(true);
  });

  it('counts an action’s lost answers once, and none when there were none', async () => {
    trouble.countLostAnswers(0);
    trouble.countLostAnswers(3);
    const counted = await metrics.registry
      .getSingleMetric('mailbridge_ambiguous_sends_total')!
      .get();
    expect(counted.values.reduce((sum, v) => sum + v.value, 0)).toBe(1);
  });

  it('waits for the gate, and ends the wait when the service stops', async () => {
    trouble.pauseFor(unavailable());
    const waiting = trouble.waitOpen();
    gate.close();
    await expect(waiting).rejects.toThrow(/shutting down/);
  });
});

describe('failed outcomes', () => {
  it('carry the code, the vendor status, a prefix and the ambiguity', () => {
    expect(failedOutcome(rejected(409), '1 of 2 recipients sent; ', true)).toEqual({
      status: 'failed',
      errorCode: 'VENDOR_REJECTED',
      vendorStatus: 409,
      message: '1 of 2 recipients sent; vendor answered 409',
      ambiguous: true,
    });
    expect(ambiguousFailure('detail')).toMatchObject({
      status: 'failed',
      errorCode: 'AMBIGUOUS_SEND',
      ambiguous: true,
    });
  });
});

describe('failureCode', () => {
  it.each([
    ['our own check refused it', new VendorRequestError('refused'), 'INVALID_REQUEST'],
    ['a 4xx', rejected(404), 'VENDOR_REJECTED'],
    ['a 2xx without a requestId', new VendorResponseError('no id', 200), 'VENDOR_BAD_RESPONSE'],
    ['a redirect', new VendorError('307; redirects are refused', false, 307), 'VENDOR_UNAVAILABLE'],
    [
      'a certificate failure',
      new VendorNetworkError('cert', 'CERT_HAS_EXPIRED', false),
      'VENDOR_UNAVAILABLE',
    ],
    ['a 503 (retriable)', unavailable(), 'VENDOR_UNAVAILABLE'],
    ['an unexpected failure', new VendorError('unexpected', false), 'INTERNAL_ERROR'],
    ['recipients withheld', new VendorWithheldError(), 'INTERNAL_ERROR'],
  ])('maps %s to its code', (_what, error, code) => {
    expect(failureCode(error)).toBe(code);
  });
});
