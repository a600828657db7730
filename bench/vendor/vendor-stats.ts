/** What the vendor sandbox received, counted by the bench (requests are not kept). */
export interface VendorStats {
  campaignRequests: number;
  campaignRecipients: number;
  /**
   * Campaign requests by how many recipients each carried, e.g. { "1000": 98, "500": 4 }: how
   * many were full, which a mean alone does not say. At most one entry per batch size.
   */
  campaignSizes: Record<string, number>;
  contactRequests: number;
  contactMembers: number;
  /** Answers by HTTP status, e.g. { "200": 1000 }. */
  statuses: Record<string, number>;
}

export function emptyStats(): VendorStats {
  return {
    campaignRequests: 0,
    campaignRecipients: 0,
    campaignSizes: {},
    contactRequests: 0,
    contactMembers: 0,
    statuses: {},
  };
}

/** Messages between the harness and the vendor host process. */
export type VendorCommand =
  | { type: 'stats'; reset: boolean }
  | { type: 'profile'; profile: import('./latency-profile').LatencyProfile };

export type VendorReport =
  { type: 'ready'; url: string; directUrl: string } | { type: 'stats'; stats: VendorStats };
