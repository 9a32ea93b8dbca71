export { ERROR_CODES, isErrorCode, type ErrorCode } from "./error-codes.js";
export { LeashError, StateError, isLeashError, messageOf, assertNever, type ErrorDetails } from "./leash-error.js";
