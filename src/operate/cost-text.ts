/**
 * A cost as a person reads it: rounded to 6 significant digits (and never fewer than 2 decimals'
 * worth of precision), in plain decimal notation, so that sums of prices such as
 * `0.00020999999999999998` show as `0.00021` and `1e-7` as `0.0000001`. Only for what people read:
 * `--json` and the API keep the exact number.
 *
 * It writes what `Intl.NumberFormat("en-US", { maximumSignificantDigits: 6, maximumFractionDigits: 2,
 * roundingPriority: "morePrecision", useGrouping: false })` writes (a test holds the two equal), without
 * building that format, which costs a command that prints one cost some 25 ms at start: the number's
 * shortest decimal digits, rounded half away from zero at the kept position, trailing zeros dropped.
 */
export function costText(cost: number): string {
  if (!Number.isFinite(cost)) return String(cost);
  // A whole cost (0, most often) reads as itself; -0 keeps its sign below.
  if (Number.isSafeInteger(cost) && !Object.is(cost, -0)) return String(cost);
  const sign = cost < 0 || Object.is(cost, -0) ? "-" : "";
  // The shortest digits that name the number: d0.d1d2... × 10^exponent.
  const [mantissa = "0", exponentText = "0"] = Math.abs(cost).toExponential().split("e");
  let digits = mantissa.replace(".", "");
  let exponent = Number(exponentText);
  // 6 significant digits, or 2 decimals when those say more (a cost of 10,000 or more).
  const kept = Math.max(6, exponent + 3);
  if (kept < digits.length) {
    const roundUp = digits.charCodeAt(kept) >= 53; // the first dropped digit is 5 or more
    digits = digits.slice(0, kept);
    if (roundUp) {
      // The digits start with a non-zero digit, so a carry past the first one lengthens them by one.
      const carried = String(BigInt(digits) + 1n);
      if (carried.length > digits.length) exponent += 1;
      digits = carried;
    }
  }
  if (exponent < 0) return `${sign}0.${("0".repeat(-exponent - 1) + digits).replace(/0+$/, "")}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1).replace(/0+$/, "");
  return `${sign}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}
