import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * NIST SP 800-63B's checks of a new password beyond its length: not only whitespace, and not a
 * commonly used or easily guessed one. The guess is zxcvbn-ts's estimate over its dictionaries of
 * about 49,000 common and breached passwords and 7,776 common words, with keyboard patterns,
 * repeats, sequences, dates and l33t substitutions, shipped in the package (nothing is fetched).
 */

/**
 * zxcvbn's score 3 (an estimated 10^8 guesses or more: out of reach of an unthrottled online attack)
 * is the least accepted. It refuses a common password and a common one with small changes, and
 * passes a phrase of a few unrelated words such as the README's `change-me-please`.
 */
const LEAST_SCORE = 3;

/** Why a password is refused, by zxcvbn's warning. */
const WHY: Record<string, string> = {
  topTen: 'is in a list of commonly used passwords',
  topHundred: 'is in a list of commonly used passwords',
  common: 'is in a list of commonly used passwords',
  pwned: 'is in a list of commonly used passwords',
  similarToCommon: 'is a commonly used password with small changes',
  wordByItself: 'is a single common word',
  simpleRepeat: 'is a repeated character or pattern',
  extendedRepeat: 'is a repeated character or pattern',
  sequences: 'is a sequence such as abcd or 1234',
  straightRow: 'is a row of keys on the keyboard',
  keyPattern: 'is a pattern of keys on the keyboard',
  recentYears: 'is built on a year',
  dates: 'is built on a date',
  userInputs: 'is built on the username',
};

/**
 * The estimate reads this many characters: plenty to tell a common password, and it bounds the time
 * one check holds the event loop (tens of milliseconds; a 1024-character l33t pattern read whole takes
 * half a second).
 */
const READ_CHARACTERS = 64;

let estimator: ZxcvbnFactory | undefined;

/** The problem of a new password that is long enough, or undefined; `context`: words of the account (its username). */
export function passwordWeakness(password: string, context: string[] = []): string | undefined {
  if (password.trim() === '') return 'must not be only whitespace';
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, maxLength: READ_CHARACTERS });
  const estimate = estimator.check(password, context);
  if (estimate.score >= LEAST_SCORE) return undefined;
  return `${WHY[estimate.feedback.warning ?? ''] ?? 'is too easy to guess'}: choose a longer phrase of unrelated words`;
}
