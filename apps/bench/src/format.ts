/** A figure for the reports: `digits` decimals, `n/a` when there is none. */
export const fmt = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits));
