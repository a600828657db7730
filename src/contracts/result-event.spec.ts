import { resultEventId } from './result-event';

describe('resultEventId', () => {
  it('is the id every earlier version gave the same result: subscribers deduplicate by it', () => {
    // Pinned: sha256 of type, source event id and template (NUL-separated), first 32 hex digits.
    expect(resultEventId('email.campaign.sent.v1', 'e-1', 'welcome')).toBe(
      '542e1ea3ec37b65a4af39ed220b36796',
    );
  });

  it('differs by result type, source event and template', () => {
    const ids = new Set([
      resultEventId('email.campaign.sent.v1', 'e-1', 'welcome'),
      resultEventId('email.dispatch.failed.v1', 'e-1', 'welcome'),
      resultEventId('email.campaign.sent.v1', 'e-2', 'welcome'),
      resultEventId('email.campaign.sent.v1', 'e-1', 'order-confirmation'),
    ]);
    expect(ids.size).toBe(4);
  });
});
