import { z } from '../zod';
import { isoDateTime } from '../common';

/** The gateway's MCP endpoint: AI assistants call Bulwark's API through its tools. */
export const MCP_PATH = '/api/v1/mcp';

/** The values of X-Bulwark-Via a service records: `mcp`, a change an AI assistant made through the MCP server. */
export const VIA_CLIENTS = ['mcp'] as const;
export type ViaClient = (typeof VIA_CLIENTS)[number];

export const assistantSettingsBody = z
  .object({
    write_tools: z.boolean().openapi({
      description:
        'Offer the MCP server\u2019s write tools (change an issue\u2019s status, assign it); false (the default) offers only the read tools',
    }),
  })
  .strict()
  .openapi('AssistantSettingsChange');

export const assistantSettingsView = z
  .object({
    write_tools: z.boolean(),
    updated_at: isoDateTime.nullable().openapi({ description: 'Null until the first change' }),
  })
  .openapi('AssistantSettings');

const jsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') }).openapi('JsonRpcMessage', {
  description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol',
});

/** A JSON-RPC 2.0 message of the Model Context Protocol, or a batch of them: what the gateway's MCP endpoint checks. */
export const mcpMessage = z.union([jsonRpcMessage, z.array(jsonRpcMessage).min(1)]).openapi('McpMessage');
