import { ConsumerStatus } from './consumer-status';

describe(`${ConsumerStatus.name}: membership`, () => {
  const SESSION_MS = 9_000;

  it('is not ready once the group has not heard from the member for its session timeout', () => {
    const status = new ConsumerStatus();
    status.watchMembership(SESSION_MS);
    status.markJoined(Date.now() - SESSION_MS - 1_000);
    expect(status.ready).toBe(false);
    expect(status.reason).toMatch(
      /^the group has not heard from this member for 10 s, past its session timeout: dropped/,
    );
  });

  it('is ready again once a heartbeat is answered or it joined again', () => {
    const status = new ConsumerStatus();
    status.watchMembership(SESSION_MS);
    status.markJoined(Date.now() - 60_000);
    status.heard();
    expect(status.ready).toBe(true);
    expect(status.reason).toBeUndefined();
    status.heard(Date.now() - 60_000);
    status.markJoined();
    expect(status.ready).toBe(true);
  });

  it('watches nothing until told the session timeout', () => {
    const status = new ConsumerStatus();
    status.markJoined(0);
    expect(status.ready).toBe(true);
    expect(status.droppedSince()).toBeUndefined();
  });

  it('leaves a member not joined to say why on its own', () => {
    const status = new ConsumerStatus();
    status.watchMembership(SESSION_MS);
    status.markJoined(Date.now() - 60_000);
    status.markDown('consumer is stopping');
    expect(status.droppedSince()).toBeUndefined();
    expect(status.reason).toBe('consumer is stopping');
  });
});
