let nextRowId = 0
/** A row's React key: rows move and are removed, so their index is no identity. */
export const rowId = () => `row-${++nextRowId}`
