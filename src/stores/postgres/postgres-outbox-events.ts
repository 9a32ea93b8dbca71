import type { AuditRecord } from "../../audit/audit-record.js";
import type { RunState } from "../../state/run-state.js";
import { newNotificationId, notificationEventsOf } from "../notification-info.js";

/**
 * The events a create or a save makes true, as the JSON text its statement takes (`p_events`), each
 * with a fresh id; `null` when it makes none, which most saves do (the statement then does nothing more).
 */
export function eventsText(state: RunState, records: readonly AuditRecord[]): string | null {
  const events = notificationEventsOf(state, records);
  if (events.length === 0) return null;
  return JSON.stringify(
    events.map((event) => ({
      id: newNotificationId(),
      type: event.type,
      key: event.key,
      timestamp: event.timestamp,
      // As a string of JSON text: read back with ->>, a NUL the data escapes stays escaped (PostgreSQL
      // refuses to turn an escaped NUL into text), and nothing of the data is parsed in SQL.
      data: JSON.stringify(event.data),
    })),
  );
}
