// How the AI SDK (ai 6 and 7) reads approvals in the messages it is given (collectToolApprovals):
// only the last message counts, when it is a tool message; each of its `tool-approval-response` parts
// names an approval id, and a `tool-approval-request` part of an assistant message maps that id to a
// tool call id. Read here the same way, so that the adapter sees the approving responses the SDK sees.

type Part = { readonly type?: unknown; readonly [key: string]: unknown };

function partsOf(message: unknown): readonly Part[] {
  if (typeof message !== "object" || message === null) return [];
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? (content.filter((part) => typeof part === "object" && part !== null) as Part[]) : [];
}

function roleOf(message: unknown): unknown {
  return typeof message === "object" && message !== null ? (message as { role?: unknown }).role : undefined;
}

/**
 * Whether the messages end with a `tool-approval-response` that approves the tool call `toolCallId`:
 * the SDK's second ask of `needsApproval`, after the app sent the approval back.
 */
export function approvedInMessages(messages: readonly unknown[] | undefined, toolCallId: string): boolean {
  if (!Array.isArray(messages) || messages.length === 0) return false;
  const last: unknown = messages[messages.length - 1];
  if (roleOf(last) !== "tool") return false;
  const approvedIds = new Set(
    partsOf(last)
      .filter((part) => part.type === "tool-approval-response" && part.approved === true)
      .map((part) => part.approvalId),
  );
  if (approvedIds.size === 0) return false;
  for (const message of messages) {
    if (roleOf(message) !== "assistant") continue;
    for (const part of partsOf(message)) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId && approvedIds.has(part.approvalId)) {
        return true;
      }
    }
  }
  return false;
}
