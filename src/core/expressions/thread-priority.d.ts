// Types of thread-priority.js (JavaScript so that template workers load it without a TypeScript loader).

export const TEMPLATE_THREAD_NICE: number
export function kernelThreadId(): number | undefined
export function yieldToServiceThread(): number | undefined
export function threadCpuMs(threadId: number): number | undefined
