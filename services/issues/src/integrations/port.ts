/** What Bulwark asks of any task tracker: one port, one adapter per tracker type (Redmine, Jira). */
export interface TicketDraft {
  /** Redmine project identifier or Jira project key. */
  project: string;
  /** Redmine tracker name or Jira issue type name. */
  issueType: string;
  summary: string;
  description: string;
  labels: string[];
}

export interface TicketState {
  key: string;
  url: string;
  status: string;
  /** The tracker counts the status as closed (Redmine is_closed, Jira status category done). */
  closed: boolean;
}

export interface TrackerPort {
  create(draft: TicketDraft): Promise<TicketState>;
  /** The ticket, or undefined when the tracker has none with this key. */
  get(key: string): Promise<TicketState | undefined>;
  /** The current state of several tickets in one search (Redmine issue_id list, Jira JQL); missing ones are left out. */
  states(keys: string[]): Promise<TicketState[]>;
  /** Moves the ticket to `status` with a comment; false (and only the comment) when the tracker offers no way there. */
  transition(key: string, status: string, comment: string): Promise<boolean>;
  comment(key: string, text: string): Promise<void>;
}

/** A tracker call that did not succeed; the message names no secret. */
export class TrackerError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'TrackerError';
  }
}
