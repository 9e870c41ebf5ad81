/**
 * Peak memory of the current process for the benchmark children (docs/architecture.md, "Scale").
 *
 * Linux keeps `ru_maxrss` across `exec`, so `process.resourceUsage().maxRSS` in a child started from a
 * large parent reports the parent's peak. `VmHWM` of `/proc/self/status` is the high-water mark of
 * this process's own memory map; it is used where it exists, else `maxRSS`.
 */
import { readFileSync } from 'node:fs';

/** Peak resident set of this process, bytes. */
export function peakRssBytes(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {
    // not Linux: fall back below
  }
  return process.resourceUsage().maxRSS * 1024;
}
