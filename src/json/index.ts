export {
  toJson,
  toSortedJson,
  isJson,
  isJsonObject,
  parseJson,
  MAX_JSON_DEPTH,
  MAX_RECORD_DEPTH,
  type Json,
  type JsonObject,
} from "./json-value.js";
export { canonicalJson, canonicalOfJson } from "./canonical-json.js";
export { sha256Hex, digestOfJson, isDigest } from "./digest.js";
export { deepFreeze } from "./deep-freeze.js";
export { copyJson } from "./copy-json.js";
export { sortKeys } from "./sort-keys.js";
