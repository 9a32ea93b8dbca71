export { ERROR_CODES, FAILURE_CODES, isErrorCode, type ErrorCode, type FailureCode } from "./error-codes.js";
export { LeashError, StateError, isLeashError, messageOf, assertNever } from "./leash-error.js";
