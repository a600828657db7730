import type { ListWindow } from './window.store';

export interface WindowNamingOptions {
  /** List name for a window, e.g. `new-customers-{window}`. */
  namePattern: string;
  /**
   * How far a window may start ahead of our clock (producers' clocks run ahead, a little). A
   * window further ahead is taken to be the current one, so that an order placed hours ahead
   * does not open a window that is due hours from now.
   */
  clockSkewMs: number;
}

/** How many named windows are kept for the next orders (a backlog spans a few at a time). */
const RECENT_WINDOWS = 16;

/** An order's window, as the window store keeps it, and the window that holds the present. */
export interface ChosenWindow {
  window: ListWindow;
  present: ListWindow;
}

/**
 * Chooses the window an order's member goes to, and names it: `<pattern with {window}>`, the
 * window's start as `20261121T1000Z` (whole minutes) or `20261121T100010Z` (shorter windows),
 * so that two windows never share a name.
 */
export class ContactListWindows {
  /** Windows named lately, by start and length; never changed by their users. */
  private readonly recent = new Map<string, Readonly<ListWindow>>();

  constructor(
    private readonly options: WindowNamingOptions,
    private readonly now: () => number = Date.now,
  ) {}

  choose(window: { start: Date; end: Date }): ChosenWindow {
    const now = this.now();
    const length = Math.max(1, window.end.getTime() - window.start.getTime());
    const presentStart = Math.floor(now / length) * length;
    const present = this.named(presentStart, length);
    const ahead = window.start.getTime() - now > this.options.clockSkewMs;
    return { window: ahead ? present : this.named(window.start.getTime(), length), present };
  }

  private named(start: number, length: number): ListWindow {
    // Every order of a window, and the present, name the same few windows: those named lately
    // are kept rather than formatted again for each order.
    const key = `${start}/${length}`;
    const known = this.recent.get(key);
    if (known) return known;
    if (this.recent.size >= RECENT_WINDOWS) this.recent.clear();
    const label = windowLabel(start, length);
    const window = {
      name: this.options.namePattern.replace('{window}', label),
      end: start + length,
    };
    this.recent.set(key, window);
    return window;
  }
}

/** `20261121T1000Z` for windows of whole minutes, `20261121T100010Z` for shorter ones. */
function windowLabel(start: number, length: number): string {
  const wholeMinutes = start % 60_000 === 0 && length % 60_000 === 0;
  const iso = new Date(start).toISOString();
  return iso.slice(0, wholeMinutes ? 16 : 19).replace(/[-:]/g, '') + 'Z';
}
