/**
 * A cost as a person reads it: rounded to 6 significant digits (and never fewer than 2 decimals'
 * worth of precision), in plain decimal notation, so that sums of prices such as
 * `0.00020999999999999998` show as `0.00021` and `1e-7` as `0.0000001`. Only for what people read:
 * `--json` and the API keep the exact number.
 */
export function costText(cost: number): string {
  if (!Number.isFinite(cost)) return String(cost);
  return FORMAT.format(cost);
}

const FORMAT = new Intl.NumberFormat("en-US", {
  maximumSignificantDigits: 6,
  maximumFractionDigits: 2,
  roundingPriority: "morePrecision",
  useGrouping: false,
});
