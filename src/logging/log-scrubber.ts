const REDACTED = '[redacted]';
/** Field names that hold keys in any object a line carries: their values are never written. */
const SECRET_FIELDS = new Set([
  'password',
  'apiKey',
  'accessToken',
  'token',
  'authorization',
  'api-key',
]);
/** Something shaped like an address: a local part, `@`, and a domain with a dot. */
const ADDRESS = /([^\s@<>"'(),;:[\]\\]+)@([^\s@<>"'(),;:[\]\\]+\.[^\s@<>"'(),;:[\]\\]+)/g;

/**
 * The last line of defence between the service and its log: whatever a line says, the keys the
 * service holds come out as `[redacted]` and recipient addresses keep only their first character
 * and their domain (`j***@example.com`), enough to tell an operator which recipient it was
 * about without putting the address in the log.
 */
export class LogScrubber {
  private readonly secrets: string[];

  constructor(secrets: readonly string[]) {
    // Longest first, so that a key that contains another is replaced whole.
    this.secrets = [...new Set(secrets.filter((s) => s.length > 0))].sort(
      (a, b) => b.length - a.length,
    );
  }

  scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out.includes('@') ? out.replace(ADDRESS, maskAddress) : out;
  }

  /**
   * The log line's fields with every string scrubbed and every field named like a key
   * (`password`, `token`, …) censored, nested objects and errors included (to a small depth: log
   * fields are flat or nearly so). The input is never changed: what needs scrubbing is copied,
   * and fields with nothing to scrub come back as they are (the line per event has none, and
   * copying it for nothing was most of what scrubbing cost).
   */
  scrubFields(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (value === null || typeof value !== 'object' || depth > 3) return value;
    if (value instanceof Error) {
      const copy = new Error(this.scrub(value.message));
      copy.name = value.name;
      copy.stack = value.stack === undefined ? undefined : this.scrub(value.stack);
      return copy;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const scrubbed = this.scrubFields(item, depth + 1);
        if (scrubbed !== item) copy ??= value.slice(0, i);
        copy?.push(scrubbed);
      }
      return copy ?? value;
    }
    const fields = value as Record<string, unknown>;
    const keys = Object.keys(fields);
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const field = fields[key];
      const scrubbed = SECRET_FIELDS.has(key) ? REDACTED : this.scrubFields(field, depth + 1);
      if (scrubbed !== field && !copy) {
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]] = fields[keys[j]];
      }
      if (copy) copy[key] = scrubbed;
    }
    return copy ?? value;
  }
}

function maskAddress(_match: string, local: string, domain: string): string {
  return `${local.slice(0, 1)}***@${domain}`;
}
