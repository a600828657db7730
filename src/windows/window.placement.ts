import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { RecordedOutcome } from '../contracts/action-outcome';
import { normalisedAddress } from '../email-api/vendor-request.validator';
import { MetricsService } from '../metrics/metrics.service';
import { SuppressionList } from '../suppression/suppression-list';
import type { ContactListAction } from '../templates/planner';
import { ContactListWindows } from './contact-list.windows';
import { WINDOW_STORE, type ListWindow, type WindowOrder, type WindowStore } from './window.store';

/** Follow-up lists whose late orders were announced; forgotten all at once when this many. */
const LATE_LISTS_REMEMBERED = 1_000;

/** A contact-list action that gathers its member into a window's list. */
export type WindowAction = Extract<ContactListAction, { mode: 'window' }>;

/**
 * Where an order's member joins its contact-list window: chosen and named by
 * `ContactListWindows`, stored by the window store, and answered at once with `in-window`. The
 * list is created when the window closes (`WindowCloser`), and the order's result published then.
 */
@Injectable()
export class WindowPlacement {
  private readonly logger = new Logger(WindowPlacement.name);
  private readonly lateListsSaid = new Set<string>();

  constructor(
    private readonly config: AppConfig,
    @Inject(ContactListWindows) private readonly naming: ContactListWindows,
    @Inject(WINDOW_STORE) private readonly store: WindowStore,
    private readonly metrics: MetricsService,
    private readonly suppression: SuppressionList,
  ) {}

  /** Stores the order's member in its window; `order` is what publishing its result needs. */
  async place(action: WindowAction, order: WindowOrder): Promise<RecordedOutcome> {
    const [member] = action.members;
    const { window, present } = this.naming.choose(action.window);
    const placed = await this.store.add({
      window,
      present,
      // Its keyed hash, not the address: enough to find the order when its list is created.
      order: { ...order, addressKey: this.suppression.keyOf(member.email) },
      address: normalisedAddress(member.email),
      member,
    });
    if (placed.status === 'late' || placed.status === 'next-window') this.late(window, placed.list);
    return { status: 'in-window', list: placed.list };
  }

  /**
   * Counts a late order, and says once per list where its window's late orders go: a backlog of
   * old orders is thousands of late orders, and each one's own line (the runner's `in-window`)
   * names its list already.
   */
  private late(window: ListWindow, list: string): void {
    const policy = this.config.batching.contactListLatePolicy;
    this.metrics.windowLateOrders.inc({ policy });
    if (this.lateListsSaid.has(list)) return;
    if (this.lateListsSaid.size >= LATE_LISTS_REMEMBERED) this.lateListsSaid.clear();
    this.lateListsSaid.add(list);
    this.logger.log(
      `late orders for ${window.name} go into ${list} (CONTACT_LIST_LATE_POLICY=${policy})`,
    );
  }
}
