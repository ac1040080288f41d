import type { RouteSpec } from '@bulwark/platform';
import { perm } from '../common';
import { assistantSettingsBody, assistantSettingsView, MCP_PATH, mcpMessage } from '../schemas/assistants';

const settings = (l: 'w') => perm('settings.assistants', l, 'unscoped');

/**
 * AI assistants: the gateway's MCP server, and whether its write tools are offered (a setting the
 * issues service keeps, since it is the issues service that records and refuses an assistant's writes).
 */
export const assistantRoutes = [
  {
    operationId: 'mcp',
    method: 'post',
    path: MCP_PATH,
    service: 'gateway',
    tag: 'AI assistants',
    access: { kind: 'authenticated' },
    summary: 'Model Context Protocol server (Streamable HTTP) for AI assistants',
    description:
      'The Model Context Protocol (https://modelcontextprotocol.io; the revisions the official SDK 1.x negotiates, 2024-11-05 to 2025-11-25) over Streamable HTTP, stateless: ' +
      'each POST carries one JSON-RPC message (initialize, tools/list, tools/call, ...) and is answered on its own, so any gateway replica answers it; no session id, no GET stream. ' +
      'Send Accept: application/json, text/event-stream. Authenticated by the Authorization bearer token alone (a login token or an API token; not the browser session). ' +
      'Each tool calls this API with the caller\u2019s token, so it sees and changes exactly what the token may through the API. ' +
      'Read tools: search_issues, get_issue, project_summary, scan_result, explain_gate, fix_first. ' +
      'Write tools (change_issue_status, assign_issue) are offered only when PUT /api/v1/mcp/settings enabled them; their changes are marked via=mcp in the issue\u2019s history. ' +
      'Text that came from scanners or repositories is returned inside an untrusted envelope, truncated per field, with a bounded number of items.',
    request: { body: mcpMessage },
    response: mcpMessage,
    errors: {
      400: 'Accept does not list application/json and text/event-stream (headers.accept), or the body is not a JSON-RPC 2.0 message (body)',
    },
  },
  {
    operationId: 'getAssistantSettings',
    method: 'get',
    path: `${MCP_PATH}/settings`,
    service: 'issues',
    tag: 'AI assistants',
    // Every caller may know whether the assistant's write tools are on: the MCP server asks with the caller's token.
    access: { kind: 'authenticated' },
    summary: 'Whether the MCP server offers its write tools',
    response: assistantSettingsView,
  },
  {
    operationId: 'updateAssistantSettings',
    method: 'put',
    path: `${MCP_PATH}/settings`,
    service: 'issues',
    tag: 'AI assistants',
    access: settings('w'),
    summary: 'Enable or disable the MCP server\u2019s write tools',
    description:
      'While disabled, the issues service also refuses (403) a change the MCP server sends (X-Bulwark-Via: mcp, which the gateway takes from its MCP server alone and drops from any other request).',
    request: { body: assistantSettingsBody },
    response: assistantSettingsView,
  },
] as const satisfies readonly RouteSpec[];
