import { Command } from "commander";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import type { ServeOptions } from "../../gateway/serve-gateway.js";

interface ServeCommandOptions extends CommonOptions {
  config: string;
  agent?: string;
  http?: string;
}

function portOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new CliError("invalid_option", "Expected --http to be a port, 0 to 65535.");
  return port;
}

/** The gateway's code, which loads the MCP SDK: an optional peer, named when it is missing. */
async function loadGateway(): Promise<{ serveGateway: (options: ServeOptions) => Promise<void> }> {
  try {
    return await import("../../gateway/serve-gateway.js");
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === "ERR_MODULE_NOT_FOUND" && String(message).includes("@modelcontextprotocol/sdk"))
      throw new CliError(
        "mcp_not_installed",
        "leash mcp serve needs the MCP SDK beside leash: npm install @modelcontextprotocol/sdk",
      );
    throw error;
  }
}

/**
 * `leash mcp serve --config FILE`: leash as an MCP server in front of the upstream MCP servers the
 * config lists; every call is a run with the config's policy, recorded in the store. The MCP SDK is
 * loaded only here, so the other commands never need it.
 */
export function mcpCommand(version: string): Command {
  const serve = new Command("serve")
    .description(
      "serve the config's upstream MCP tools over stdio (or --http PORT on 127.0.0.1), each call a leash run",
    )
    .requiredOption("--config <file>", "the gateway's config (JSON): servers, policy, limits, approval")
    .option("--agent <path>", "a module of the app that exports `guards`")
    .option("--http <port>", "serve Streamable HTTP on 127.0.0.1:PORT (0: any free port) instead of stdio");
  withCommonOptions(serve).action(async (options: ServeCommandOptions) => {
    const location = storeLocation(options);
    const httpPort = portOf(options.http);
    const { readGatewayConfig } = await import("../../gateway/gateway-config.js");
    const config = readGatewayConfig(options.config);
    const { serveGateway } = await loadGateway();
    await serveGateway({
      config,
      location,
      version,
      ...(options.agent === undefined ? {} : { agentPath: options.agent }),
      ...(httpPort === undefined ? {} : { httpPort }),
    });
  });
  return new Command("mcp").description("leash and MCP: serve leash as a policy gateway").addCommand(serve);
}
