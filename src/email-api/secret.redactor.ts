const REDACTED = '[redacted]';
const EMAIL = /[^\s@<>"'(),;:]+@[^\s@<>"'(),;:]+/g;
const CONTROL = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * Keeps the vendor keys out of everything the client emits. Errors from undici or the system are
 * never passed on as they are: they may hold request options or headers, so the client keeps a
 * redacted copy (name, code, message, stack) as the `cause`.
 */
export class SecretRedactor {
  private readonly secrets: string[];

  constructor(secrets: string[]) {
    // Longest first, so that `TOKEN <key>` goes before `<key>` alone.
    this.secrets = [...new Set(secrets.filter((s) => s.length > 0))].sort(
      (a, b) => b.length - a.length,
    );
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** A vendor-supplied message made safe to carry: no keys, no email addresses, one short line. */
  vendorMessage(text: string, max = 200): string {
    const clean = this.redact(text).replace(EMAIL, '[email]').replace(CONTROL, ' ').trim();
    return clean.length > max ? `${clean.slice(0, max)}…` : clean;
  }

  /** A plain Error with the origin's name, code, message and stack, keys removed. */
  copyError(error: unknown): Error {
    // Duck-typed, not instanceof: errors from node's sockets may come from another realm.
    if (typeof error !== 'object' || error === null || !('message' in error)) {
      return new Error(this.redact(String(error)));
    }
    const { message, name, code, stack } = error as Partial<Error> & { code?: unknown };
    const copy = new Error(this.redact(String(message)));
    copy.name = typeof name === 'string' ? name : 'Error';
    if (typeof code === 'string') Object.assign(copy, { code });
    copy.stack = typeof stack === 'string' ? this.redact(stack) : undefined;
    return copy;
  }
}
