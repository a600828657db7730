import { readFileSync } from 'node:fs';
import { HostCpu, machineCpuMs, redisCpuMs, sharesPer1k, type HostCpuReading } from './host-cpu';

describe('machineCpuMs', () => {
  it("sums the busy fields of /proc/stat's cpu line: user, nice, system, irq, softirq, steal", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const stat = 'cpu  100 20 30 9000 50 5 7 3 40 0\ncpu0 50 10 15 4500 25 2 3 1 20 0\n';
    expect(machineCpuMs(stat, 100)).toBe(1_650);
    expect(machineCpuMs(stat, 1_000)).toBe(165);
  });

  it('reads a real /proc/stat, whose count does not go back', () => {
    const first = machineCpuMs(readFileSync('/proc/stat', 'utf8'));
    expect(first).toBeGreaterThan(0);
    expect(machineCpuMs(readFileSync('/proc/stat', 'utf8'))).toBeGreaterThanOrEqual(first);
  });

  it('refuses a text without a cpu line', () => {
    expect(() => machineCpuMs('intr 1 2 3\n')).toThrow('/proc/stat has no cpu line');
  });
});

describe('redisCpuMs', () => {
  it("adds Redis' user and system time, not its children's, from INFO cpu", () => {
    const info =
      '# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\n' +
      'used_cpu_sys_children:9.000000\r\nused_cpu_user_children:9.000000\r\n' +
      'used_cpu_sys_main_thread:1.000000\r\nused_cpu_user_main_thread:2.000000\r\n';
    expect(redisCpuMs(info)).toBe(3_750);
  });

  it('refuses an INFO without the fields, rather than report 0', () => {
    expect(() => redisCpuMs('# CPU\r\nused_cpu_sys:1.0\r\n')).toThrow('no used_cpu_user');
  });
});

describe('sharesPer1k', () => {
  const at = (r: Partial<HostCpuReading>): HostCpuReading => ({ machine: 0, harness: 0, ...r });

  it("divides each source's CPU over the window by the thousands of events", () => {
    const start = at({ machine: 10_000, broker: 1_000, redis: 500, vendor: 100, harness: 2_000 });
    const end = at({ machine: 14_000, broker: 1_600, redis: 800, vendor: 150, harness: 2_400 });
    // 2,000 events; the process under test spent 2,500 ms.
    expect(sharesPer1k(start, end, 2_500, 2_000)).toEqual({
      phase: 1_250,
      broker: 300,
      redis: 150,
      vendor: 25,
      harness: 200,
      machine: 2_000,
      other: 75,
    });
  });

  it('leaves a source it could not read at both ends out, as null, and never goes below 0', () => {
    const start = at({ machine: 0, broker: 100 });
    const end = at({ machine: 1_000, redis: 50 });
    expect(sharesPer1k(start, end, 1_200, 1_000)).toEqual({
      phase: 1_200,
      broker: null,
      redis: null,
      vendor: null,
      harness: 0,
      machine: 1_000,
      other: 0,
    });
  });

  it('has no figure for a window without events', () => {
    expect(sharesPer1k(at({}), at({ machine: 100 }), 10, 0)).toBeNull();
  });
});

describe('HostCpu', () => {
  it('reads the machine, each process it was given, Redis and its own process', async () => {
    const info = jest.fn().mockResolvedValue('used_cpu_sys:0.5\r\nused_cpu_user:1.5\r\n');
    const reading = await new HostCpu({
      brokerPid: process.pid,
      vendorPid: process.pid,
      redis: { info },
    }).read();
    expect(info).toHaveBeenCalledWith('cpu');
    expect(reading.redis).toBe(2_000);
    expect(reading.machine).toBeGreaterThan(0);
    expect(reading.broker).toBeGreaterThan(0);
    // The same process, read a moment later: its counter may have ticked on (10 ms) in between.
    expect(reading.vendor).toBeGreaterThanOrEqual(reading.broker!);
    expect(reading.vendor! - reading.broker!).toBeLessThan(1_000);
    expect(reading.harness).toBeGreaterThan(0);
  });

  it('has no Redis figure when INFO lacks the CPU fields (a restricted Redis)', async () => {
    const info = jest.fn().mockResolvedValue('# CPU\r\n');
    expect((await new HostCpu({ redis: { info } }).read()).redis).toBeUndefined();
  });

  it('reads nothing of a source it was not given, or one that is gone', async () => {
    const info = jest.fn().mockRejectedValue(new Error('Connection is closed.'));
    const reading = await new HostCpu({ brokerPid: 2 ** 22 + 1, redis: { info } }).read();
    expect(reading.broker).toBeUndefined();
    expect(reading.vendor).toBeUndefined();
    expect(reading.redis).toBeUndefined();
  });
});
