/** Exit codes, documented in the README: a pipeline branches on them. */
export const EXIT = { ok: 0, gateFailed: 1, usage: 2, server: 3 } as const;

/** An error the user sees as one line, ending the command with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Bad usage or input: a flag, a file, a token the server refuses. */
export const usageError = (message: string) => new CliError(message, EXIT.usage);
/** The server answered with an error of its own, or could not be reached. */
export const serverError = (message: string) => new CliError(message, EXIT.server);
