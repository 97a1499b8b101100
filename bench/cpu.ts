import fs from 'node:fs'

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses; none once it is gone. */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * CPU seconds (user and system) that a process has used, and those of its children that ended and
 * were reaped, from /proc; zeros once it is gone. PostgreSQL's postmaster holds the CPU of backends
 * that closed during a phase, which would otherwise drop out of the sum.
 */
function cpuTimesOf(pid: string): { own: number; endedChildren: number } {
  const fields = statFields(pid)
  if (!fields) return { own: 0, endedChildren: 0 }
  return {
    own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S,
    endedChildren: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S,
  }
}

/** CPU seconds (user and system) of this process's children that have ended and been reaped. */
export function endedChildrenCpuSeconds(): number {
  return cpuTimesOf('self').endedChildren
}

function commandOf(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

/**
 * CPU seconds used so far by the service's process and by every PostgreSQL process on this machine
 * (its backends do the database's share of the work). On the embedded store the database runs
 * inside the service, so its share is in `service`. Throughput on these shared machines varies by
 * a third from run to run; the CPU a delivery costs varies far less, so it is what to compare
 * between changes.
 */
export function cpuSeconds(servicePid: number | undefined): { service: number; database: number } {
  let database = 0
  for (const pid of fs.readdirSync('/proc')) {
    if (/^\d+$/.test(pid) && commandOf(pid) === 'postgres') {
      const times = cpuTimesOf(pid)
      database += times.own + times.endedChildren
    }
  }
  return { service: servicePid === undefined ? 0 : cpuTimesOf(String(servicePid)).own, database }
}

/**
 * CPU nanoseconds (on a CPU, in user or kernel mode) used so far by every thread of a live process,
 * from each thread's /proc schedstat: nanosecond resolution, where /proc's stat counts 10 ms ticks.
 * A thread that ended between two readings drops out of the second; the service's threads (the
 * JavaScript thread, libuv's pool, V8's helpers) live as long as it does.
 */
export function threadsCpuNs(pid: number): number {
  let total = 0
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // The thread ended while being read.
    }
  }
  return total
}

/** CPU seconds (user and system) the given processes have used so far; a process gone counts 0. */
export function processesCpuSeconds(pids: Iterable<number>): number {
  let sum = 0
  for (const pid of pids) sum += cpuTimesOf(String(pid)).own
  return sum
}
