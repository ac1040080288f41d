/** The one error every parser throws for input it cannot or will not read. */
export class ReportParseError extends Error {
  constructor(
    readonly file: string,
    readonly format: string | undefined,
    readonly reason: string,
  ) {
    super(`${file}: ${format ? `${format}: ` : ''}${reason}`);
    this.name = 'ReportParseError';
  }
}

/** Thrown deep inside readers and parsers, which do not know the file name; `parse` adds it. */
export class InputError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InputError';
  }
}
