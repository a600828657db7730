import { InFlightWindow } from './in-flight-window';

describe(InFlightWindow.name, () => {
  it('admits records while both the record and the byte limit hold', () => {
    const window = new InFlightWindow({ records: 3, bytes: 100 });
    expect(window.tryEnter(40)).toBe(true);
    expect(window.tryEnter(40)).toBe(true);
    expect(window.tryEnter(40)).toBe(false); // 120 bytes
    expect(window.tryEnter(10)).toBe(true);
    expect(window.tryEnter(1)).toBe(false); // 4 records
    expect(window.inFlight).toEqual({ records: 3, bytes: 90 });
  });

  it('admits one record larger than the byte limit when nothing else is in flight', () => {
    const window = new InFlightWindow({ records: 3, bytes: 100 });
    expect(window.tryEnter(500)).toBe(true);
    expect(window.tryEnter(1)).toBe(false);
    window.leave(500);
    expect(window.tryEnter(1)).toBe(true);
  });

  it('says there is room only once it drained to three quarters of its limits', () => {
    const window = new InFlightWindow({ records: 8, bytes: 1_000 });
    for (let i = 0; i < 8; i++) window.tryEnter(10);
    const listener = jest.fn();
    window.onRoom(listener);
    window.leave(10);
    expect(listener).not.toHaveBeenCalled(); // 7 of 8
    window.leave(10);
    expect(listener).toHaveBeenCalledTimes(1); // 6 of 8
    window.leave(10);
    expect(listener).toHaveBeenCalledTimes(1); // once
  });

  it('calls a listener at once when there is room already', () => {
    const window = new InFlightWindow({ records: 8, bytes: 1_000 });
    const listener = jest.fn();
    window.onRoom(listener);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
