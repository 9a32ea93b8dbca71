import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";

/** The machine a benchmark ran on, printed beside its results. */
export interface MachineInfo {
  /** `node --version`. */
  node: string;
  /** The CPU model, from /proc/cpuinfo where there is one. */
  cpu: string;
  /** The cores this process may use. */
  cores: number;
  /** Total memory, in GiB. */
  memoryGiB: number;
  /** The operating system and its release. */
  system: string;
  /**
   * The load average over 1, 5 and 15 minutes when described: above the core count, other processes
   * competed for the CPU and timings are slower and noisier than on an idle machine.
   */
  loadAverage: number[];
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  return {
    node: process.version,
    cpu: cpuModel(),
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    system: `${type()} ${release()}`,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/**
 * One line for a results file, e.g. `Node v20.20.2, AMD EPYC (2 cores), 23.5 GiB memory, Linux 6.1,
 * load average 0.4`; with `timed`, a load above the core count is flagged as inflating the timings.
 */
export function describeMachine(machine: MachineInfo, options: { timed?: boolean } = {}): string {
  const load = machine.loadAverage[0] ?? 0;
  const busy =
    options.timed !== false && load > machine.cores
      ? ` (busy: more runnable processes than cores, so timings are inflated)`
      : "";
  return `Node ${machine.node}, ${machine.cpu} (${machine.cores} cores), ${machine.memoryGiB} GiB memory, ${machine.system}, load average ${load}${busy}`;
}

function cpuModel(): string {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("model name"));
    const model = line?.split(":")[1]?.trim();
    if (model !== undefined && model !== "") return model;
  } catch {
    // Not Linux: os.cpus() names the model too.
  }
  return cpus()[0]?.model ?? "unknown CPU";
}
