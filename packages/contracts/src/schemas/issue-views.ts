import { z } from '../zod';
import { isoDateTime, nonBlank } from '../common';
import { issueFilterQuery } from './issues';

/** The parameters a saved view keeps: the filters and searches of GET /issues, its sort and page size, and whether duplicates count. */
export const ISSUE_VIEW_PARAMS: readonly string[] = [...Object.keys(issueFilterQuery), 'sort', 'limit', 'duplicates'];
export const ISSUE_VIEW_QUERY_MAX = 4000;
export const ISSUE_VIEWS_PER_USER = 100;

/** A parameter name as written in a query: its brackets plain or percent-encoded (URLSearchParams writes %5B, %5D). */
const BRACKETS: Record<string, string> = { '[': '(?:\\[|%5[Bb])', ']': '(?:\\]|%5[Dd])' };
const writtenName = (name: string) => name.replace(/[[\].*+?^${}()|\\]/g, (c) => BRACKETS[c] ?? `\\${c}`);

const viewParam = `(?:${ISSUE_VIEW_PARAMS.map(writtenName).join('|')})(?:=[^&\\u0000]*)?`;

/** The form of a saved view's query: parameters of ISSUE_VIEW_PARAMS, each name=value or name alone, joined by "&". */
export const ISSUE_VIEW_QUERY_PATTERN = new RegExp(`^&*(?:${viewParam}(?:&+${viewParam})*&*)?$`);

const viewQuery = z
  .string()
  .max(ISSUE_VIEW_QUERY_MAX)
  .superRefine((q, ctx) => {
    const unknown = [...new Set([...new URLSearchParams(q).keys()].filter((k) => !ISSUE_VIEW_PARAMS.includes(k)))];
    if (unknown.length)
      ctx.addIssue({ code: 'custom', message: `unknown parameters: ${unknown.slice(0, 10).join(', ')}` });
    else if (!ISSUE_VIEW_QUERY_PATTERN.test(q))
      ctx.addIssue({
        code: 'custom',
        message: 'must name each parameter plainly (only its brackets percent-encoded), as URLSearchParams writes it',
      });
  })
  .openapi({
    description:
      'The view as URL query parameters without the "?" (as the console\u2019s address has them): filter[...], search[...], filter_inversion, sort, limit, duplicates; a name with its brackets plain or as %5B and %5D, its other characters plain',
    pattern: ISSUE_VIEW_QUERY_PATTERN.source,
    example: 'filter%5Bseverity%5D=critical&sort=-severity',
  });

export const issueViewBody = z
  .object({ name: nonBlank(100), query: viewQuery })
  .strict()
  .openapi('IssueViewBody');

export const savedIssueView = z
  .object({ id: z.string(), name: z.string(), query: z.string(), created_at: isoDateTime })
  .openapi('SavedIssueView');
