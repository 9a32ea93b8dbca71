import type { Json } from "../json/index.js";

type Part = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function size(data: unknown): number {
  // Base64 text: three bytes for every four characters, less the padding.
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function described(part: Part): Json {
  const out: Record<string, Json> = {};
  for (const key of ["type", "mimeType", "uri", "name", "title", "description"]) {
    const value = text(part[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** One content part as JSON: text as its text, anything else described (binary data by its size). */
function partJson(part: unknown): Json {
  if (typeof part !== "object" || part === null)
    return { type: "unknown", note: "A content part that is not an object." };
  const item = part as Part;
  if (item.type === "text" && typeof item.text === "string") return item.text;
  if (item.type === "image" || item.type === "audio") {
    return { ...(described(item) as object), bytes: size(item.data), note: "Binary data not passed on." };
  }
  if (item.type === "resource_link") return described(item);
  if (item.type === "resource" && typeof item.resource === "object" && item.resource !== null) {
    const resource = item.resource as Part;
    const out = { type: "resource", ...(described(resource) as object) } as Record<string, Json>;
    if (typeof resource.text === "string") out.text = resource.text;
    else {
      out.bytes = size(resource.blob);
      out.note = "Binary data not passed on.";
    }
    return out;
  }
  return {
    type: typeof item.type === "string" ? item.type : "unknown",
    note: "A content part of a kind leash does not read.",
  };
}

/**
 * What a call gives the run: `structuredContent` when the server sent it, else the content parts as
 * JSON (one text part as its text, several as an array).
 */
export function callResult(result: Record<string, unknown>): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const parts = Array.isArray(result.content) ? result.content : [];
  if (parts.length === 1) return partJson(parts[0]);
  return parts.map(partJson);
}

const MAX_ERROR_DETAIL = 4000;

/**
 * The message of an `isError` result: its text parts, then a description of each other part and the
 * JSON of `structuredContent`, so no detail the server gave is lost; a plain sentence when it gave none.
 */
export function errorText(result: Record<string, unknown>): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const lines = parts.map(partJson).map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  if (result.structuredContent !== undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(result.structuredContent);
    } catch {
      json = undefined;
    }
    if (json !== undefined) lines.push(json);
  }
  if (lines.length === 0) return "The MCP tool reported an error without details.";
  const text = lines.join("\n");
  return text.length > MAX_ERROR_DETAIL ? `${text.slice(0, MAX_ERROR_DETAIL)}…` : text;
}

/**
 * Why a `tools/call` result is not one (read leniently, so a part of an unknown kind is not a failure):
 * `content` not an array of objects with a string `type`, `isError` not a boolean, `structuredContent`
 * not an object. Undefined when it is one.
 */
export function malformedResult(result: Record<string, unknown>): string | undefined {
  const { content, isError, structuredContent } = result;
  if (isError !== undefined && typeof isError !== "boolean") return "`isError` is not a boolean";
  if (structuredContent !== undefined && (typeof structuredContent !== "object" || structuredContent === null)) {
    return "`structuredContent` is not an object";
  }
  if (content === undefined) return structuredContent === undefined ? "it has no `content`" : undefined;
  if (!Array.isArray(content)) return "`content` is not an array";
  const typed = (part: unknown) =>
    typeof part === "object" && part !== null && typeof (part as Record<string, unknown>).type === "string";
  return content.every(typed) ? undefined : "a part of `content` has no string `type`";
}
