import type { RecordedRequest } from '../../src/sandbox/sandbox-options';
import type { UnansweredRequest } from '../infra/witness-proxy';
import type { ActionKind } from '../traffic/chaos-workload';

/** What the vendor side saw, folded per address: the ground truth the results are held against. */
export interface VendorLedger {
  /** Accepted (2xx) campaign requests that carried each address. */
  campaignAccepted: Map<string, number>;
  /** Accepted contact lists that hold each address. */
  listAccepted: Map<string, number>;
  /** Accepted contact lists per list name. */
  listsByName: Map<string, number>;
  /** Addresses of requests written in full but never answered, per kind, with the last such request. */
  unanswered: Record<ActionKind, Map<string, { outcome: string; at: number }>>;
  acceptedCampaignRequests: number;
  acceptedListRequests: number;
  /** Requests answered with a fault, and all requests, while the faults were on. */
  faultedDuringLoad: number;
  receivedDuringLoad: number;
  byFault: Record<string, number>;
}

interface CampaignBody {
  recipients?: { to?: Array<{ email?: unknown }> };
}

interface ListBody {
  name?: unknown;
  members?: Array<{ email?: unknown }>;
}

/** Reads the sandbox's record (every request, in full) and the witness proxy's unanswered requests. */
export function vendorLedger(
  requests: RecordedRequest[],
  unanswered: UnansweredRequest[],
  faultsOffAt: number,
): VendorLedger {
  const ledger: VendorLedger = {
    campaignAccepted: new Map(),
    listAccepted: new Map(),
    listsByName: new Map(),
    unanswered: { campaign: new Map(), list: new Map() },
    acceptedCampaignRequests: 0,
    acceptedListRequests: 0,
    faultedDuringLoad: 0,
    receivedDuringLoad: 0,
    byFault: {},
  };
  for (const request of requests) {
    if (Date.parse(request.at) < faultsOffAt) {
      ledger.receivedDuringLoad++;
      if (request.fault) ledger.faultedDuringLoad++;
    }
    if (request.fault) ledger.byFault[request.fault] = (ledger.byFault[request.fault] ?? 0) + 1;
    if (request.status < 200 || request.status >= 300) continue;
    if (isCampaign(request.path)) {
      ledger.acceptedCampaignRequests++;
      for (const email of campaignEmails(request.body)) bump(ledger.campaignAccepted, email);
    } else {
      ledger.acceptedListRequests++;
      const body = request.body as ListBody | undefined;
      bump(ledger.listsByName, typeof body?.name === 'string' ? body.name : '(no name)');
      for (const email of listEmails(body)) bump(ledger.listAccepted, email);
    }
  }
  for (const request of unanswered) {
    const kind: ActionKind = isCampaign(request.path) ? 'campaign' : 'list';
    const emails =
      kind === 'campaign' ? campaignEmails(request.body) : listEmails(request.body as ListBody);
    for (const email of emails)
      ledger.unanswered[kind].set(email, { outcome: request.outcome, at: request.at });
  }
  return ledger;
}

function isCampaign(path: string): boolean {
  return path.split('?')[0].endsWith('/email/campaign');
}

function campaignEmails(body: unknown): string[] {
  const to = (body as CampaignBody | undefined)?.recipients?.to ?? [];
  return to
    .map((r) => r.email)
    .filter((e): e is string => typeof e === 'string')
    .map(lower);
}

function listEmails(body: ListBody | undefined): string[] {
  return (body?.members ?? [])
    .map((m) => m.email)
    .filter((e): e is string => typeof e === 'string')
    .map(lower);
}

function lower(email: string): string {
  return email.toLowerCase();
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
