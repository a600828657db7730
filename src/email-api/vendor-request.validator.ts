import { VendorRequestError } from './vendor.errors';
import { isRecord } from './is-record';
import {
  CONTACT_MEMBER_TEXT_FIELDS,
  type CampaignRecipient,
  type CampaignRequest,
  type ContactListRequest,
} from './vendor.types';

/** CR, LF, NUL, NEL and the Unicode line and paragraph separators: header injection material. */
const LINE_BREAK = /[\r\n\0\u0085\u2028\u2029]/;
/**
 * What no single-line text the vendor shows may hold: control characters (C0, DEL, C1), and
 * invisible characters that make one text look like another (zero-width space, word joiner and
 * invisible operators, byte-order mark, soft hyphen, bidirectional overrides and isolates).
 * The zero-width joiner and non-joiner stay allowed: Persian, Indic scripts and emoji need them.
 */
const UNSAFE_TEXT =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029]/;
/** In an address nothing invisible at all, joiners included: two addresses must never look alike. */
const INVISIBLE_IN_ADDRESS = /[\u200c\u200d]/;
/** Bounds on what reaches the vendor, for fields the interface leaves open. */
const MAX_LENGTH = {
  email: 320,
  name: 200,
  subject: 998,
  campaignId: 200,
  listName: 200,
  field: 500,
};
/** Deliberately loose (the vendor checks addresses); it only keeps out what cannot be one. */
const EMAIL = /^[^\s@<>",;:()[\]\\]+@[^\s@<>",;:()[\]\\]+$/;
const CUSTOM_HEADER = /^X-[A-Za-z0-9-]+$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

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
  const addresses = new Set<string>();
  (to as unknown[]).forEach((recipient, index) => {
    let issue = recipientProblem(recipient, subjectKeys);
    const address = issue ? '' : normalisedAddress((recipient as CampaignRecipient).email);
    if (!issue && addresses.has(address)) issue = "repeats an earlier recipient's address";
    if (issue) check.refused.push({ index, problem: `recipients.to[${index}]: ${issue}` });
    else {
      addresses.add(address);
      check.sendable.push(index);
    }
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
  const issue =
    textProblem('subject', request.subject, MAX_LENGTH.subject) ??
    textProblem('campaignId', request.campaignId, MAX_LENGTH.campaignId) ??
    textProblem('preview', request.preview, MAX_LENGTH.field);
  if (issue) return issue;
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
    const issue = textProblem(`headers.${name}`, value, 2000);
    if (issue) return issue;
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
  const issue = emailProblem('email', email) ?? nameProblem(name);
  if (issue) return issue;
  if (attributes === undefined) return undefined;
  if (!isRecord(attributes)) return 'attributes must be an object';
  // for…in rather than Object.entries: every recipient of every request passes here.
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value: unknown = (attributes as Record<string, unknown>)[key];
    if (typeof value !== 'string') return `attributes.${key} must be a string`;
    // Attribute names are the vendor's merge keys: plain words. Values are merged into an HTML
    // body, so line breaks are fine there, control characters are not.
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(key)) return 'an attribute name is not a plain word';
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(value)) {
      return `attributes.${key} contains a control character`;
    }
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
  if (typeof email !== 'string') return 'email is not an email address';
  return emailProblem('email', email) ?? nameProblem(name);
}

function emailProblem(field: string, email: string): string | undefined {
  if (email.length > MAX_LENGTH.email) return `${field} is longer than ${MAX_LENGTH.email}`;
  if (LINE_BREAK.test(email)) return `${field} contains a line break`;
  if (UNSAFE_TEXT.test(email) || INVISIBLE_IN_ADDRESS.test(email)) {
    return `${field} contains a control or invisible character`;
  }
  return EMAIL.test(email) ? undefined : `${field} is not an email address`;
}

function nameProblem(name: unknown): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== 'string') return 'name must be a string';
  return textProblem('name', name, MAX_LENGTH.name);
}

/** A single line of text: no line break, nothing invisible or controlling, not too long. */
function textProblem(field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (LINE_BREAK.test(value)) return `${field} contains a line break`;
  if (UNSAFE_TEXT.test(value)) return `${field} contains a control or invisible character`;
  if (value.length > max) return `${field} is longer than ${max}`;
  return undefined;
}

function contactListProblem(request: ContactListRequest): string | undefined {
  if (!isRecord(request)) return 'the request must be an object';
  if (typeof request.name !== 'string' || request.name.trim() === '') return 'name is required';
  const issue = textProblem('name', request.name, MAX_LENGTH.listName);
  if (issue) return issue;
  if (request.members === undefined) return undefined;
  if (!Array.isArray(request.members)) return 'members must be an array';
  const addresses = new Set<string>();
  for (const [i, member] of (request.members as unknown[]).entries()) {
    if (!isRecord(member)) return `members[${i}] must be an object`;
    if (typeof member.email !== 'string' || member.email === '')
      return `members[${i}].email is required`;
    const problem = emailProblem(`members[${i}].email`, member.email);
    if (problem) return problem;
    const address = normalisedAddress(member.email);
    if (addresses.has(address)) return `members[${i}].email repeats an earlier member's address`;
    addresses.add(address);
    for (const field of CONTACT_MEMBER_TEXT_FIELDS) {
      const value = member[field];
      if (value === undefined) continue;
      if (typeof value !== 'string') return `members[${i}].${field} must be a string`;
      const fieldIssue = textProblem(`members[${i}].${field}`, value, MAX_LENGTH.field);
      if (fieldIssue) return fieldIssue;
    }
    const tags = member.tags;
    if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))) {
      return `members[${i}].tags must be an array of strings`;
    }
    for (const tag of (tags ?? []) as string[]) {
      const tagIssue = textProblem(`members[${i}].tags`, tag, MAX_LENGTH.name);
      if (tagIssue) return tagIssue;
    }
  }
  return undefined;
}

/**
 * How two addresses are compared: the domain is case-insensitive (RFC 5321), and no provider
 * that matters treats the local part's case as significant, so the whole address is lower-cased,
 * in Unicode's NFC form so that one address spelled with composed or decomposed letters is one.
 */
export function normalisedAddress(email: string): string {
  return email.normalize('NFC').toLowerCase();
}

function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]));
}
