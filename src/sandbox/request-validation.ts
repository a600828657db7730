import { isRecord } from '../email-api/is-record';

/**
 * What the stand-in refuses with 400: bodies that break the interface document (section 2). It
 * checks shapes and types only; the vendor's finer rules are not shown, so neither are they here.
 */
export function campaignProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'body must be a JSON object';
  for (const field of ['subject', 'body', 'preview', 'campaignId'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'string') {
      return `${field} must be a string`;
    }
  }
  if (body.disableTrackingLinks !== undefined && typeof body.disableTrackingLinks !== 'boolean') {
    return 'disableTrackingLinks must be a boolean';
  }
  if (body.headers !== undefined && !isStringMap(body.headers)) {
    return 'headers must map names to strings';
  }
  if (body.sender !== undefined) {
    if (!isRecord(body.sender)) return 'sender must be an object';
    for (const role of ['from', 'replyTo'] as const) {
      const address = body.sender[role];
      if (address === undefined) continue;
      if (!isRecord(address) || typeof address.email !== 'string') {
        return `sender.${role}.email must be a string`;
      }
      if (address.name !== undefined && typeof address.name !== 'string') {
        return `sender.${role}.name must be a string`;
      }
    }
  }
  const recipients = body.recipients;
  if (!isRecord(recipients) || !Array.isArray(recipients.to)) {
    return 'recipients.to must be an array';
  }
  for (const [i, r] of (recipients.to as unknown[]).entries()) {
    if (!isRecord(r) || typeof r.email !== 'string' || r.email === '') {
      return `recipients.to[${i}].email must be a string`;
    }
    if (r.name !== undefined && typeof r.name !== 'string') {
      return `recipients.to[${i}].name must be a string`;
    }
    if (r.attributes !== undefined && !isStringMap(r.attributes)) {
      return `recipients.to[${i}].attributes must map names to strings`;
    }
  }
  return undefined;
}

export function contactListProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'body must be a JSON object';
  if (typeof body.name !== 'string' || body.name === '') return 'name is required';
  if (body.members === undefined) return undefined;
  if (!Array.isArray(body.members)) return 'members must be an array';
  for (const [i, m] of (body.members as unknown[]).entries()) {
    if (!isRecord(m) || typeof m.email !== 'string' || m.email === '') {
      return `members[${i}].email is required`;
    }
    for (const [field, value] of Object.entries(m)) {
      const ok =
        field === 'tags'
          ? Array.isArray(value) && value.every((t) => typeof t === 'string')
          : typeof value === 'string';
      if (!ok) return `members[${i}].${field} has the wrong type`;
    }
  }
  return undefined;
}

/** Recipients of a campaign body already checked by `campaignProblem`. */
export function recipientCount(body: unknown): number {
  return ((body as { recipients: { to: unknown[] } }).recipients.to ?? []).length;
}

export function memberCount(body: unknown): number {
  return ((body as { members?: unknown[] }).members ?? []).length;
}

function isStringMap(value: unknown): boolean {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}
