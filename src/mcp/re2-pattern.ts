/**
 * Why a JSON Schema pattern has no RE2 equivalent: it uses what a linear-time engine cannot do
 * (a backreference, a lookaround) or a form leash does not translate.
 */
export class UntranslatablePattern extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = new.target.name;
  }
}

// ECMAScript's \s: its WhiteSpace (tab, vertical tab, form feed, U+FEFF and every Zs space) and
// LineTerminator (LF, CR, U+2028, U+2029). RE2's \s is ASCII only, so it is spelled out.
const SPACES = "\\x09\\x0A\\x0B\\x0C\\x0D\\x{2028}\\x{2029}\\x{FEFF}\\p{Zs}";
// ECMAScript's `.` without the s flag: any code point but a line terminator (RE2's leaves out only LF).
const DOT = "[^\\x0A\\x0D\\x{2028}\\x{2029}]";

// The long names of the general categories ECMAScript accepts, spelled as RE2 knows them.
const CATEGORIES: Readonly<Record<string, string>> = {
  Letter: "L",
  Cased_Letter: "LC",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Unassigned: "Cn",
  Private_Use: "Co",
  Surrogate: "Cs",
};

const hex = (codePoint: number): string => `\\x{${codePoint.toString(16).toUpperCase()}}`;
const isWordCharacter = (character: string): boolean => /^[A-Za-z0-9_]$/.test(character);

/** A reader over the code points of a pattern, which ECMAScript has already parsed as valid in `u` mode. */
class Reader {
  readonly #points: string[];
  at = 0;
  constructor(source: string) {
    this.#points = Array.from(source);
  }
  get done(): boolean {
    return this.at >= this.#points.length;
  }
  peek(offset = 0): string | undefined {
    return this.#points[this.at + offset];
  }
  next(): string {
    return this.#points[this.at++]!;
  }
  /** Reads up to (not including) `end`, and skips `end`. */
  until(end: string): string {
    let text = "";
    while (!this.done && this.peek() !== end) text += this.next();
    this.at += 1;
    return text;
  }
}

function property(negated: boolean, body: string): string {
  const [name, value] = body.includes("=") ? body.split("=", 2) : [undefined, body];
  let re2: string;
  if (name === "General_Category" || name === "gc") re2 = CATEGORIES[value] ?? value;
  else if (name === "Script" || name === "sc") re2 = value!;
  else if (name !== undefined) throw new UntranslatablePattern(`the property \`\\p{${body}}\` has no RE2 equivalent`);
  else if (value === "Any") return negated ? "[^\\x00-\\x{10FFFF}]" : "[\\x00-\\x{10FFFF}]";
  else if (value === "ASCII") return negated ? "[^\\x00-\\x7F]" : "[\\x00-\\x7F]";
  else re2 = CATEGORIES[value] ?? value;
  return `\\${negated ? "P" : "p"}{${re2}}`;
}

/** A `\u` escape's code point; a pair of escapes that spell a surrogate pair is one code point, as in `u` mode. */
function unicodeEscape(reader: Reader): number {
  if (reader.peek() === "{") {
    reader.next();
    return Number.parseInt(reader.until("}"), 16);
  }
  let digits = "";
  for (let index = 0; index < 4; index += 1) digits += reader.next();
  const high = Number.parseInt(digits, 16);
  if (high >= 0xd800 && high <= 0xdbff && reader.peek() === "\\" && reader.peek(1) === "u" && reader.peek(2) !== "{") {
    let low = "";
    for (let index = 2; index < 6; index += 1) low += reader.peek(index) ?? "";
    const lowPoint = Number.parseInt(low, 16);
    if (/^[0-9A-Fa-f]{4}$/.test(low) && lowPoint >= 0xdc00 && lowPoint <= 0xdfff) {
      reader.at += 6;
      return (high - 0xd800) * 0x400 + (lowPoint - 0xdc00) + 0x10000;
    }
  }
  return high;
}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

/**
 * One escape (the backslash already read), in or out of a class: its RE2 spelling and whether it
 * stands for one character (which may end a range in a class).
 */
function escape(reader: Reader, inClass: boolean): { text: string; single: boolean } {
  const character = reader.next();
  if ("dDwW".includes(character)) return { text: `\\${character}`, single: false };
  if (character === "s") return { text: inClass ? SPACES : `[${SPACES}]`, single: false };
  if (character === "S") {
    if (inClass) throw new UntranslatablePattern("`\\S` inside a character class has no RE2 equivalent");
    return { text: `[^${SPACES}]`, single: false };
  }
  if (character === "b" || character === "B") {
    if (inClass) return { text: hex(8), single: true };
    return { text: `\\${character}`, single: false };
  }
  if (character === "p" || character === "P") {
    reader.next();
    return { text: property(character === "P", reader.until("}")), single: false };
  }
  if (character === "k" || /[1-9]/.test(character)) {
    throw new UntranslatablePattern("a backreference cannot be matched in linear time");
  }
  if (character === "0") return { text: hex(0), single: true };
  if (Object.hasOwn(CONTROL_ESCAPES, character)) return { text: hex(CONTROL_ESCAPES[character]!), single: true };
  if (character === "c") return { text: hex(reader.next().charCodeAt(0) % 32), single: true };
  if (character === "x") return { text: hex(Number.parseInt(reader.next() + reader.next(), 16)), single: true };
  if (character === "u") return { text: hex(unicodeEscape(reader)), single: true };
  // An identity escape of a syntax character, `/` or (in a class) `-`: RE2 takes escaped punctuation too.
  return { text: hex(character.codePointAt(0)!), single: true };
}

function characterClass(reader: Reader): string {
  const negated = reader.peek() === "^";
  if (negated) reader.next();
  if (reader.peek() === "]") {
    reader.next();
    // `[]` matches nothing and `[^]` any code point; RE2 has no spelling for either.
    return negated ? "[\\x00-\\x{10FFFF}]" : "[^\\x00-\\x{10FFFF}]";
  }
  let body = "";
  // Whether the last item can begin a range, and whether a `-` just made one.
  let lastSingle = false;
  let dash = false;
  while (!reader.done && reader.peek() !== "]") {
    const character = reader.next();
    let item: { text: string; single: boolean };
    if (character === "\\") item = escape(reader, true);
    else if (character === "-" && lastSingle && !dash && reader.peek() !== "]") {
      body += "-";
      dash = true;
      lastSingle = false;
      continue;
    } else item = { text: isWordCharacter(character) ? character : hex(character.codePointAt(0)!), single: true };
    body += item.text;
    // After a range, the next `-` is a literal again, as ECMAScript reads `[a-b-c]`.
    lastSingle = item.single && !dash;
    dash = false;
  }
  reader.next();
  return `[${negated ? "^" : ""}${body}]`;
}

function group(reader: Reader): string {
  if (reader.peek() !== "?") return "(";
  const kind = `${reader.peek(1) ?? ""}${reader.peek(2) ?? ""}`;
  if (kind.startsWith(":")) {
    reader.at += 2;
    return "(?:";
  }
  if (kind.startsWith("=") || kind.startsWith("!") || kind === "<=" || kind === "<!") {
    throw new UntranslatablePattern("a lookahead or lookbehind cannot be matched in linear time");
  }
  if (kind.startsWith("<")) {
    reader.at += 2;
    return `(?P<${reader.until(">")}>`;
  }
  throw new UntranslatablePattern(`the group \`(?${kind}\` has no RE2 equivalent`);
}

/**
 * The RE2 spelling of an ECMAScript pattern (as JSON Schema's `pattern` means it: `u` mode, no
 * flags) with the same meaning: `.`, `\s` and `\S` keep ECMAScript's sets of characters, escapes are
 * spelled as code points, and a literal in a class is always escaped (RE2 reads `[[:alpha:]]` as a
 * POSIX class). The source must already be valid in `u` mode (`new RegExp(source, "u")`).
 *
 * @throws UntranslatablePattern for a backreference, a lookaround, or another form RE2 lacks.
 * @example
 * re2Pattern("^[a-z]+\\.json$"); // "^[a-z]+\\x{2E}json$"
 */
export function re2Pattern(source: string): string {
  const reader = new Reader(source);
  let out = "";
  while (!reader.done) {
    const character = reader.next();
    if (character === "\\") out += escape(reader, false).text;
    else if (character === "[") out += characterClass(reader);
    else if (character === "(") out += group(reader);
    else if (character === ".") out += DOT;
    // Outside a class, `u` mode reads every `{` as a quantifier's: its bounds go through as they are.
    else if (character === "{") out += `{${reader.until("}")}}`;
    else if ("^$|)*+?".includes(character) || isWordCharacter(character)) out += character;
    else out += hex(character.codePointAt(0)!);
  }
  return out;
}
