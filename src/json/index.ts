export { toJson, isJson, isJsonObject, parseJson, type Json, type JsonObject } from "./json-value.js";
export { canonicalJson, canonicalOfJson } from "./canonical-json.js";
export { sha256Hex, digestOf, digestOfJson, isDigest } from "./digest.js";
