// CPU time of a process and everything it started (the gateway forks workers: sqlite readers, the
// fan-out child), read from /proc: each live process's user + system time, plus what its children
// that have ended were counted (cutime, cstime). Linux only; clock ticks of 10 ms (USER_HZ 100).
import { readdirSync, readFileSync } from "node:fs";

const MS_PER_TICK = 10;

function ownAndEndedChildrenTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command's closing parenthesis: state is field 3, utime 14 ... cstime 17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  } catch {
    return 0; // it ended between the listing and the read
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (listed) children.push(...listed.split(" ").map(Number));
    }
  } catch {
    // ended meanwhile
  }
  return children;
}

/** Milliseconds of CPU `pid` and its descendants have used so far. */
export function processTreeCpuMs(pid: number): number {
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop()!;
    ticks += ownAndEndedChildrenTicks(next);
    pending.push(...childrenOf(next));
  }
  return ticks * MS_PER_TICK;
}
