/**
 * Where an answer recorded out of process came from, as far as its channel can tell: `via` names the
 * channel, and the other fields (strings) say what the channel knows: the command line's
 * `{ via: "cli", user, host }` (operating-system user and host), the MCP gateway's
 * `{ via: "mcp_elicitation", client, host }` (the client that asked its person). Recorded beside the
 * approver's name in the state and in the `approval_answered` audit record, and handed to
 * `policy.mayApprove`, so an app can refuse answers from a channel it does not trust. It says where an
 * answer came from, not who typed the name.
 */
export interface AnswerOrigin {
  /** The channel the answer came through: `"cli"`, `"mcp_elicitation"`... */
  via: string;
  /**
   * More of what the channel tells (`user`, `host`, `client`...), each a string; a standing grant's
   * use (`{ via: "grant", grant, use }`) numbers the use.
   */
  [field: string]: string | number;
}
