// What the real Chat Completions API answers 400 to, checked on every request the loopback server
// receives: a request the real API would refuse is refused here too, with the reason recorded.

const TOP_LEVEL = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_completion_tokens",
  "max_tokens",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "response_format",
  "user",
  "seed",
  "stop",
  "n",
  "store",
  "metadata",
  "reasoning_effort",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "modalities",
  "audio",
  "prediction",
  "service_tier",
  "verbosity",
  "web_search_options",
  "prompt_cache_key",
  "safety_identifier",
]);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isText = (content: unknown): boolean =>
  typeof content === "string" ||
  (Array.isArray(content) && content.length > 0 && content.every((part) => isObject(part) && part.type === "text"));

function toolsRefusal(tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return "Invalid type for 'tools': expected an array.";
  if (tools.length === 0) return "Invalid 'tools': empty array. Expected an array with minimum length 1.";
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function))
      return `Invalid 'tools[${index}]': expected { type: "function", function: {...} }.`;
    const { name, parameters, description } = tool.function;
    if (typeof name !== "string" || !TOOL_NAME.test(name))
      return `Invalid 'tools[${index}].function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
    if (parameters !== undefined && !isObject(parameters))
      return `Invalid type for 'tools[${index}].function.parameters': expected an object.`;
    if (description !== undefined && typeof description !== "string")
      return `Invalid type for 'tools[${index}].function.description': expected a string.`;
  }
  return undefined;
}

function toolCallsRefusal(index: number, toolCalls: unknown): string | undefined {
  if (!Array.isArray(toolCalls)) return `Invalid type for 'messages[${index}].tool_calls': expected an array.`;
  if (toolCalls.length === 0)
    return `Invalid 'messages[${index}].tool_calls': empty array. Expected an array with minimum length 1.`;
  for (const [position, call] of toolCalls.entries()) {
    const where = `messages[${index}].tool_calls[${position}]`;
    if (!isObject(call) || typeof call.id !== "string" || call.id === "")
      return `Missing required parameter: '${where}.id'.`;
    if (call.type !== "function") return `Invalid value for '${where}.type': expected 'function'.`;
    if (!isObject(call.function) || typeof call.function.name !== "string")
      return `Missing required parameter: '${where}.function.name'.`;
    if (typeof call.function.arguments !== "string")
      return `Invalid type for '${where}.function.arguments': expected a string, but got ${typeof call.function.arguments}.`;
  }
  return undefined;
}

function messagesRefusal(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return "Missing required parameter: 'messages'.";
  if (messages.length === 0) return "Invalid 'messages': empty array. Expected an array with minimum length 1.";
  // The call ids of the last assistant message that are still waiting for their tool message.
  let open: Set<string> | undefined;
  let answered = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `Invalid type for 'messages[${index}]': expected an object.`;
    const { role } = message;
    if (role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string") return `Missing required parameter: 'messages[${index}].tool_call_id'.`;
      if (open === undefined || (!open.has(id) && !answered.has(id)))
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      if (answered.has(id)) return `Invalid parameter: the tool_call_id '${id}' is answered twice.`;
      if (!isText(message.content)) return `Invalid type for 'messages[${index}].content': expected a string.`;
      open.delete(id);
      answered.add(id);
      continue;
    }
    if (open !== undefined && open.size > 0)
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`;
    open = undefined;
    answered = new Set();
    switch (role) {
      case "system":
      case "developer":
      case "user":
        if (!isText(message.content)) return `Invalid type for 'messages[${index}].content': expected a string.`;
        break;
      case "assistant": {
        const hasCalls = message.tool_calls !== undefined;
        if (hasCalls) {
          const refusal = toolCallsRefusal(index, message.tool_calls);
          if (refusal !== undefined) return refusal;
          open = new Set((message.tool_calls as { id: string }[]).map((call) => call.id));
        }
        const { content } = message;
        if (content === null || content === undefined) {
          if (!hasCalls) return `Invalid value for 'messages[${index}].content': expected a string, got null.`;
        } else if (typeof content !== "string" && !isText(content)) {
          return `Invalid type for 'messages[${index}].content': expected a string or null.`;
        }
        break;
      }
      default:
        return `Invalid value: '${String(role)}'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`;
    }
  }
  if (open !== undefined && open.size > 0)
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`;
  return undefined;
}

/** Why the real API would refuse this request body with a 400, or `undefined` when it would accept it. */
export function chatRefusal(body: unknown): string | undefined {
  if (!isObject(body)) return "We could not parse the JSON body of your request.";
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return `Unrecognized request argument supplied: ${key}`;
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  const messages = messagesRefusal(body.messages);
  if (messages !== undefined) return messages;
  if (body.tools !== undefined) {
    const tools = toolsRefusal(body.tools);
    if (tools !== undefined) return tools;
  }
  if (body.parallel_tool_calls !== undefined && body.tools === undefined)
    return "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.";
  if (body.parallel_tool_calls !== undefined && typeof body.parallel_tool_calls !== "boolean")
    return "Invalid type for 'parallel_tool_calls': expected a boolean.";
  if (body.stream !== undefined && typeof body.stream !== "boolean")
    return "Invalid type for 'stream': expected a boolean.";
  if (body.stream_options !== undefined && body.stream !== true)
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  for (const key of ["max_completion_tokens", "max_tokens"]) {
    const value = body[key];
    if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 1))
      return `Invalid '${key}': integer below minimum value. Expected a value >= 1.`;
  }
  return undefined;
}
