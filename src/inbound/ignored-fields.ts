/** At most this many ignored field paths are remembered (and each logged once) per process. */
export const MAX_REMEMBERED_FIELDS = 100;

/** A log line, as the service's logger takes it. */
export type LogLine = { msg: string } & Record<string, unknown>;

/**
 * What becomes of the fields the reader ignored (`validateEvent`), unknown fields of a domain
 * event and lenient values that did not fit: every one counted in
 * `mailbridge_inbound_ignored_fields_total` by event type, and each new path of a type logged once,
 * so that the team running mailbridge learns what producers added. Producers choose the names,
 * so the paths remembered are bounded: past {@link MAX_REMEMBERED_FIELDS}, new ones are still
 * counted but no longer logged, and one line says so.
 */
export class IgnoredFields {
  private readonly seen = new Set<string>();
  private full = false;

  constructor(
    private readonly count: (type: string, fields: number) => void,
    private readonly log: (line: LogLine) => void,
    private readonly limit = MAX_REMEMBERED_FIELDS,
  ) {}

  /**
   * One accepted event of `type` had `unknown` fields removed, and the values of the lenient
   * fields `unfit`, which did not fit their rules.
   */
  report(type: string, unknown: readonly string[], unfit: readonly string[] = []): void {
    this.count(type, unknown.length + unfit.length);
    const fields = [
      ...unknown.map((field) => ({ field, what: 'an unknown field' })),
      ...unfit.map((field) => ({ field, what: 'a value that does not fit' })),
    ];
    for (const { field, what } of fields) {
      const key = `${type}\n${what}\n${field}`;
      if (this.seen.has(key)) continue;
      if (this.seen.size >= this.limit) {
        if (!this.full) {
          this.full = true;
          this.log({
            msg: `ignored fields: ${this.limit} paths already logged; further new ones are counted in mailbridge_inbound_ignored_fields_total, not logged`,
            limit: this.limit,
          });
        }
        return;
      }
      this.seen.add(key);
      this.log({
        msg: `ignored ${what} of ${type}: ${field} (logged once)`,
        eventType: type,
        field,
      });
    }
  }
}
