import { VendorResponseError } from './vendor.errors';
import { isRecord } from './is-record';
import type { CampaignResponse, ContactListResponse } from './vendor.types';
import type { VendorReply } from './vendor.transport';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A 2xx is a success only with the body the interface promises; anything else is reported, not
 * trusted (and not retried: the vendor may have acted on the request).
 */
export function parseCampaignResponse({ status, body }: VendorReply): CampaignResponse {
  if (!isRecord(body) || typeof body.requestId !== 'string' || body.requestId.trim() === '') {
    throw new VendorResponseError(`campaign send answered ${status} without a requestId`, status);
  }
  if (body.message !== undefined && typeof body.message !== 'string') {
    throw new VendorResponseError(
      `campaign send answered ${status} with a non-string message`,
      status,
    );
  }
  return { requestId: body.requestId, message: body.message ?? '' };
}

export function parseContactListResponse({ status, body }: VendorReply): ContactListResponse {
  if (!isRecord(body) || typeof body.id !== 'string' || !UUID.test(body.id)) {
    throw new VendorResponseError(`contact creation answered ${status} without a UUID id`, status);
  }
  return { id: body.id };
}
