import { VendorRequestError } from './vendor.errors';
import type { CampaignRecipient, CampaignRequest, ContactListRequest } from './vendor.types';

/** CR, LF, NUL, NEL and the Unicode line and paragraph separators: header injection material. */
const LINE_BREAK = /[\r\n\0\u0085\u2028\u2029]/;
/** Deliberately loose (the vendor checks addresses); it only keeps out what cannot be one. */
const EMAIL = /^[^\s@<>",;:()[\]\\]+@[^\s@<>",;:()[\]\\]+$/;
const CUSTOM_HEADER = /^X-[A-Za-z0-9-]+$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const MEMBER_STRING_FIELDS = [
  'firstName',
  'lastName',
  'source',
  'birthday',
  'currency',
  'country',
  'province',
  'city',
  'address1',
  'address2',
  'phone',
  'postalCode',
  'company',
  'lastPurchaseOrder',
  'lastPurchasePrice',
  'latestOrderId',
] as const;

export interface CampaignCheck {
  /** Indexes of recipients that may be sent. */
  sendable: number[];
  /** Recipients refused on their own; the rest of the campaign still goes. */
  refused: Array<{ index: number; problem: string }>;
}

/**
 * Checks a campaign before anything leaves. A problem in the shared content (subject, sender,
 * headers) refuses the whole request; a problem in one recipient refuses only that recipient.
 * Problems name fields, never values: they end up in logs and result events.
 */
export function checkCampaign(request: CampaignRequest): CampaignCheck {
  const problem = contentProblem(request);
  if (problem) throw new VendorRequestError(`campaign refused: ${problem}`);
  const to = (request.recipients as { to?: unknown } | undefined)?.to;
  if (!Array.isArray(to))
    throw new VendorRequestError('campaign refused: recipients.to must be an array');
  const subjectKeys = placeholders(request.subject ?? '');
  const check: CampaignCheck = { sendable: [], refused: [] };
  (to as unknown[]).forEach((recipient, index) => {
    const issue = recipientProblem(recipient, subjectKeys);
    if (issue) check.refused.push({ index, problem: `recipients.to[${index}]: ${issue}` });
    else check.sendable.push(index);
  });
  if (check.sendable.length === 0) {
    throw new VendorRequestError('campaign refused: no recipient with a valid email address');
  }
  return check;
}

export function checkContactList(request: ContactListRequest): void {
  const problem = contactListProblem(request);
  if (problem) throw new VendorRequestError(`contact list refused: ${problem}`);
}

function contentProblem(request: CampaignRequest): string | undefined {
  if (!isRecord(request)) return 'the request must be an object';
  for (const field of ['subject', 'body', 'preview', 'campaignId'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'string') {
      return `${field} must be a string`;
    }
  }
  if (request.subject !== undefined && LINE_BREAK.test(request.subject)) {
    return 'subject contains a line break';
  }
  if (request.campaignId !== undefined && LINE_BREAK.test(request.campaignId)) {
    return 'campaignId contains a line break';
  }
  if (
    request.disableTrackingLinks !== undefined &&
    typeof request.disableTrackingLinks !== 'boolean'
  ) {
    return 'disableTrackingLinks must be a boolean';
  }
  for (const role of ['from', 'replyTo'] as const) {
    const address: unknown = request.sender?.[role];
    if (address === undefined) continue;
    const issue = addressProblem(address);
    if (issue) return `sender.${role}: ${issue}`;
  }
  return headersProblem(request.headers);
}

function headersProblem(headers: unknown): string | undefined {
  if (headers === undefined) return undefined;
  if (!isRecord(headers)) return 'headers must be an object';
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name !== 'List-Unsubscribe' && !CUSTOM_HEADER.test(name)) {
      return 'headers may hold only List-Unsubscribe and X- headers named with letters, digits and -';
    }
    if (typeof value !== 'string') return `headers.${name} must be a string`;
    if (LINE_BREAK.test(value)) return `headers.${name} contains a line break`;
    if (name === 'List-Unsubscribe' && !unsubscribeTargetsOk(value)) {
      return 'headers.List-Unsubscribe must list only https: or mailto: URIs';
    }
  }
  return undefined;
}

/** RFC 2369 form `<uri>, <uri>`; a single bare URI is tolerated. Only https: and mailto:. */
function unsubscribeTargetsOk(value: string): boolean {
  const trimmed = value.trim();
  const uris = trimmed.startsWith('<')
    ? trimmed.split(',').map((part) => /^\s*<([^<>]+)>\s*$/.exec(part)?.[1])
    : [trimmed];
  return (
    uris.length > 0 &&
    uris.every((uri) => {
      if (!uri) return false;
      try {
        const { protocol } = new URL(uri);
        return protocol === 'https:' || protocol === 'mailto:';
      } catch {
        return false;
      }
    })
  );
}

function recipientProblem(recipient: unknown, subjectKeys: Set<string>): string | undefined {
  if (!isRecord(recipient)) return 'must be an object';
  const { email, name, attributes } = recipient as Partial<CampaignRecipient>;
  if (typeof email !== 'string' || email === '') return 'email is missing';
  if (LINE_BREAK.test(email) || !EMAIL.test(email)) return 'email is not an email address';
  if (name !== undefined && typeof name !== 'string') return 'name must be a string';
  if (name !== undefined && LINE_BREAK.test(name)) return 'name contains a line break';
  if (attributes === undefined) return undefined;
  if (!isRecord(attributes)) return 'attributes must be an object';
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') return `attributes.${key} must be a string`;
    // Merged into the subject, a line break would become a header break at the vendor.
    if (subjectKeys.has(key) && LINE_BREAK.test(value)) {
      return `attributes.${key} is used in the subject and contains a line break`;
    }
  }
  return undefined;
}

function addressProblem(address: unknown): string | undefined {
  if (!isRecord(address)) return 'must be an object with name and email';
  const { name, email } = address;
  if (typeof email !== 'string' || LINE_BREAK.test(email) || !EMAIL.test(email)) {
    return 'email is not an email address';
  }
  if (name !== undefined && typeof name !== 'string') return 'name must be a string';
  if (typeof name === 'string' && LINE_BREAK.test(name)) return 'name contains a line break';
  return undefined;
}

function contactListProblem(request: ContactListRequest): string | undefined {
  if (!isRecord(request)) return 'the request must be an object';
  if (typeof request.name !== 'string' || request.name.trim() === '') return 'name is required';
  if (LINE_BREAK.test(request.name)) return 'name contains a line break';
  if (request.members === undefined) return undefined;
  if (!Array.isArray(request.members)) return 'members must be an array';
  for (const [i, member] of (request.members as unknown[]).entries()) {
    if (!isRecord(member)) return `members[${i}] must be an object`;
    if (typeof member.email !== 'string' || member.email === '')
      return `members[${i}].email is required`;
    if (LINE_BREAK.test(member.email) || !EMAIL.test(member.email)) {
      return `members[${i}].email is not an email address`;
    }
    for (const field of MEMBER_STRING_FIELDS) {
      if (member[field] !== undefined && typeof member[field] !== 'string') {
        return `members[${i}].${field} must be a string`;
      }
    }
    const tags = member.tags;
    if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))) {
      return `members[${i}].tags must be an array of strings`;
    }
  }
  return undefined;
}

function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
