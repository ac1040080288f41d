import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { BulwarkApi } from './api-client';
import { toolResult } from './untrusted';
import { issueItem, IssueView } from './views';

/** The write tools' names: a request naming none of them, and not listing the tools, needs no look at the setting. */
export const WRITE_TOOL_NAMES = ['change_issue_status', 'assign_issue'] as const;

const issueId = z.uuid().describe('The issue\u2019s id');
const comment = z.string().trim().min(1).max(4000);

/**
 * The write tools, registered only while an administrator enabled them (PUT /api/v1/mcp/settings).
 * Each is one PUT /api/v1/issue/{id} with the caller's token: the caller's own right to change the
 * issue applies, and the issues service records the change as made through the assistant (via=mcp).
 */
export function registerWriteTools(server: McpServer, api: BulwarkApi): void {
  server.registerTool(
    WRITE_TOOL_NAMES[0],
    {
      title: 'Change an issue\u2019s status',
      description:
        'Move an issue to another status (an allowed transition), with a comment saying why. Status ids: 1 New, 2 Confirmed, 3 In progress, 4 Fixed, 5 False positive, 6 Risk accepted, 7 Suppressed, 8 Reopen. Recorded in the issue\u2019s history as done through the assistant.',
      inputSchema: { issue_id: issueId, status_id: z.number().int().min(1).max(1000), comment },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (a) => {
      const issue = await api.put<IssueView>(`/api/v1/issue/${encodeURIComponent(a.issue_id)}`, {
        status_id: a.status_id,
        comment: a.comment,
      });
      return toolResult(`Issue ${issue.id} is now ${issue.status}.`, { issue: issueItem(issue) });
    },
  );

  server.registerTool(
    WRITE_TOOL_NAMES[1],
    {
      title: 'Assign an issue',
      description:
        'Assign an issue to a person or group by name (null unassigns), optionally with a comment. Recorded in the issue\u2019s history as done through the assistant.',
      inputSchema: {
        issue_id: issueId,
        assignee: z.string().trim().min(1).max(255).nullable(),
        comment: comment.optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (a) => {
      const issue = await api.put<IssueView>(`/api/v1/issue/${encodeURIComponent(a.issue_id)}`, {
        assignee: a.assignee,
        comment: a.comment,
      });
      return toolResult(`Issue ${issue.id} ${issue.assignee === null ? 'is unassigned' : 'is assigned'}.`, {
        issue: issueItem(issue),
      });
    },
  );
}
