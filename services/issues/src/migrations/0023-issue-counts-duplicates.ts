import type { Migration } from '@bulwark/platform';

/** issue_counts' groups, as the triggers fill them from an issue's own columns. */
const GROUP = 'project_code, tool_name, scanner, tool_id, category, severity_rank, status_id, duplicate';
const OF_ISSUE =
  'project_code, tool_name, scanner, tool_id, category, severity_rank, status_id, duplicate_of is not null as duplicate';

/**
 * issue_counts keeps whether its issues are duplicates, so that a count of originals (the rule every
 * count follows: duplicates are not separate issues) sums groups as any other count does instead of
 * visiting every matching issue. The triggers write the new column; the counts are made again from
 * the issues (issue_records, under the issues view), which the table lock keeps still meanwhile.
 */
export const issueCountsDuplicatesMigration: Migration = {
  name: '0023_issue_counts_duplicates',
  async up(db) {
    await db.raw('lock table issue_records in share row exclusive mode');
    await db.raw('alter table issue_counts add column duplicate boolean not null default false');
    const body = {
      insert: `select ${GROUP}, count(*) from (select ${OF_ISSUE} from new_issues) i group by ${GROUP}`,
      delete: `select ${GROUP}, -count(*) from (select ${OF_ISSUE} from old_issues) i group by ${GROUP}`,
      update: `select ${GROUP}, sum(n) from (select ${OF_ISSUE}, -1 as n from old_issues union all select ${OF_ISSUE}, 1 from new_issues) d group by ${GROUP} having sum(n) <> 0`,
    };
    for (const [event, select] of Object.entries(body))
      await db.raw(`create or replace function issue_counts_after_${event}() returns trigger language plpgsql as $$
        begin
          insert into issue_counts (${GROUP}, n) ${select};
          return null;
        end $$`);
    await db.raw('delete from issue_counts');
    await db.raw(
      `insert into issue_counts (${GROUP}, n) select ${GROUP}, count(*) from (select ${OF_ISSUE} from issue_records) i group by ${GROUP}`,
    );
  },
};
