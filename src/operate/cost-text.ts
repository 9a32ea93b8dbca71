/**
 * A cost as a person reads it: rounded to 6 significant digits (and never fewer than 2 decimals'
 * worth of precision), in plain decimal notation, so that sums of prices such as
 * `0.00020999999999999998` show as `0.00021` and `1e-7` as `0.0000001`. Only for what people read:
 * `--json` and the API keep the exact number.
 */
export function costText(cost: number): string {
  if (!Number.isFinite(cost)) return String(cost);
  FORMAT ??= new Intl.NumberFormat("en-US", FORMAT_OPTIONS);
  return FORMAT.format(cost);
}

// Made at the first use: building a number format takes milliseconds that a command which prints no
// cost should not spend at start.
let FORMAT: Intl.NumberFormat | undefined;
const FORMAT_OPTIONS: Intl.NumberFormatOptions = {
  maximumSignificantDigits: 6,
  maximumFractionDigits: 2,
  roundingPriority: "morePrecision",
  useGrouping: false,
};
