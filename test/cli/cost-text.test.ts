import assert from "node:assert/strict";
import test from "node:test";
import { seededRandom } from "../../src/bench/seeded-random.js";
import { costText } from "../../src/operate/cost-text.js";

/** What costText promises to write: the number format it stands in for. */
const format = new Intl.NumberFormat("en-US", {
  maximumSignificantDigits: 6,
  maximumFractionDigits: 2,
  roundingPriority: "morePrecision",
  useGrouping: false,
});

test("a cost is written as the 6-significant-digit, 2-decimal number format writes it, for every kind of number", () => {
  const fixed = [
    0,
    -0,
    1,
    -1,
    0.5,
    2.5,
    0.00020999999999999998,
    1e-7,
    -0.0000001,
    0.1234565,
    1.005,
    0.995,
    0.9995,
    9.999995,
    0.9999996,
    99999.95,
    999999.995,
    123456.785,
    1234567.891,
    12.345675,
    0.0000012345678,
    1e21,
    1.5e22,
    -2.5e25,
    5e-324,
    Number.MIN_VALUE * 3,
    Number.MAX_VALUE,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 60,
    0.1 + 0.2,
  ];
  const random = seededRandom(0x1ea5);
  const numbers = [...fixed];
  for (let index = 0; index < 20_000; index++) {
    const exponent = Math.floor(random() * 50) - 30;
    const sign = random() < 0.2 ? -1 : 1;
    numbers.push(sign * random() * 10 ** exponent);
    // Decimal values whose digits end on a 5 at the rounding position or near it.
    numbers.push(Number(`${Math.floor(random() * 1e4)}.${Math.floor(random() * 1e8)}5`));
    numbers.push(Math.floor(random() * 1e9) / 10 ** Math.floor(random() * 14));
  }
  for (const number of numbers) assert.equal(costText(number), format.format(number), `for ${number}`);
});

test("what is not a finite number is written as JavaScript writes it", () => {
  assert.equal(costText(Number.NaN), "NaN");
  assert.equal(costText(Number.POSITIVE_INFINITY), "Infinity");
  assert.equal(costText(Number.NEGATIVE_INFINITY), "-Infinity");
});
