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
 * CPU seconds (user and system) that a process has used, from /proc; 0 once it is gone. With
 * `endedChildren`, those of its children that ended too: PostgreSQL's postmaster holds those of
 * backends that closed during a phase, which would otherwise drop out of the sum.
 */
function cpuSecondsOf(pid: string, endedChildren = false): number {
  const fields = statFields(pid)
  if (!fields) return 0
  const own = Number(fields[11]) + Number(fields[12])
  return (endedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / TICKS_PER_S
}

/** CPU seconds (user and system) of this process's children that have ended and been reaped. */
export function endedChildrenCpuSeconds(): number {
  return cpuSecondsOf('self', true) - cpuSecondsOf('self')
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
    if (/^\d+$/.test(pid) && commandOf(pid) === 'postgres') database += cpuSecondsOf(pid, true)
  }
  return { service: servicePid === undefined ? 0 : cpuSecondsOf(String(servicePid)), database }
}
