import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const METHOD = "notifications/tools/list_changed";

type RawHandler = (notification: unknown) => Promise<void>;

/** The one `tools/list_changed` handler leash sets on a Client, shared by every tool set on it. */
interface Shared {
  subscribers: Set<() => void>;
  /** The handler the app had set before leash's, called too, and put back when the last one leaves. */
  previous: RawHandler | undefined;
}

const byClient = new WeakMap<Client, Shared>();

function handlersOf(client: Client): Map<string, RawHandler> | undefined {
  // The SDK's Protocol keeps its handlers in this map (1.x); without it, an app's handler is replaced.
  const map = (client as unknown as { _notificationHandlers?: unknown })._notificationHandlers;
  return map instanceof Map ? (map as Map<string, RawHandler>) : undefined;
}

/**
 * Subscribes to `notifications/tools/list_changed` on a Client. One handler per Client serves every
 * subscriber; a handler the app set before is kept and called as well (on the SDK's 1.x Client). The
 * returned function removes this subscriber only; the last one out puts the app's handler back.
 */
export function onToolsChanged(client: Client, subscriber: () => void): () => void {
  let shared = byClient.get(client);
  if (shared === undefined) {
    const created: Shared = { subscribers: new Set(), previous: handlersOf(client)?.get(METHOD) };
    shared = created;
    byClient.set(client, created);
    client.setNotificationHandler(ToolListChangedNotificationSchema, async (notification) => {
      for (const each of [...created.subscribers]) each();
      if (created.previous !== undefined) await created.previous(notification);
    });
  }
  const mine = (): void => subscriber();
  shared.subscribers.add(mine);
  const current = shared;
  return () => {
    if (!current.subscribers.delete(mine) || current.subscribers.size > 0) return;
    byClient.delete(client);
    const handlers = handlersOf(client);
    if (current.previous !== undefined && handlers !== undefined) handlers.set(METHOD, current.previous);
    else client.removeNotificationHandler(METHOD);
  };
}
