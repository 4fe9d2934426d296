/**
 * CPU time per thread of every process on the machine (Linux `/proc`), for bench-ab's `--threads`: a snapshot before
 * a load and one after, and the difference summed by thread name (DedicatedWorker, ThreadPoolForeground, …), so a
 * load's CPU can be set against the floor's (docs/performance.md, "The CPU budget of one load"). Elsewhere than
 * Linux the snapshots are empty and nothing is printed.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/task/<tid>/stat` times (USER_HZ, 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/** Ticks of user + system time per `pid/tid`, with the thread's name. */
export type ThreadTicks = Map<string, { name: string; ticks: number }>;

export function threadTicks(): ThreadTicks {
  const out: ThreadTicks = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return out;
  }
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        // The name sits in parentheses and may itself hold spaces; the fields after it are space-separated.
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${pid}/${tid}`, { name, ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return out;
}

/** Milliseconds of CPU per thread name between two snapshots, largest first (a trailing number is dropped). */
export function cpuByThreadName(before: ThreadTicks, after: ThreadTicks): Array<[string, number]> {
  const byName = new Map<string, number>();
  for (const [key, { name, ticks }] of after) {
    const spent = ticks - (before.get(key)?.ticks ?? 0);
    if (spent > 0) {
      const group = name.replace(/\d+$/, '');
      byName.set(group, (byName.get(group) ?? 0) + (spent * 1000) / TICKS_PER_SECOND);
    }
  }
  return [...byName].sort((a, b) => b[1] - a[1]);
}
