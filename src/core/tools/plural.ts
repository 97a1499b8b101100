/** "1 ticket", "3 tickets": for summary lines. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
