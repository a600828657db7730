import type { ResultEvent } from './result-event';

export const EMAIL_DISPATCH_FAILED_V1 = 'email.dispatch.failed.v1';

/**
 * `email.dispatch.failed.v1`: the source event could not be turned into a vendor call that
 * succeeded. `message` never holds personal data or keys.
 */
export type EmailDispatchFailedV1 = ResultEvent<
  typeof EMAIL_DISPATCH_FAILED_V1,
  {
    sourceEventId: string;
    sourceEventType: string;
    template: string;
    /** A stable machine-readable code, e.g. `VENDOR_REJECTED`. */
    errorCode: string;
    vendorStatus?: number;
    retriable: boolean;
    message: string;
    /**
     * Present (true) with `errorCode` `AMBIGUOUS_SEND` (AMBIGUOUS_SEND_POLICY=fail): the vendor
     * may or may not have the send; it was not sent again. Redrive it if it did not arrive.
     */
    ambiguous?: true;
  }
>;
