export { ERROR_CODES, FAILURE_CODES, isErrorCode, type ErrorCode, type FailureCode } from "./error-codes.js";
export {
  LeashError,
  StateError,
  isLeashError,
  messageOf,
  assertNever,
  MAX_MESSAGE_LENGTH,
  type ErrorDetails,
} from "./leash-error.js";
export { checkOptionKeys, type OptionKeysRefusal } from "./check-option-keys.js";
