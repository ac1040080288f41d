import { expect } from 'chai';
import { passwordWeakness } from './password-policy';

describe('identity: the password policy beyond length (NIST SP 800-63B)', () => {
  const table: { password: string; context?: string[]; problem: string | undefined }[] = [
    { password: '            ', problem: 'must not be only whitespace' },
    { password: '\t \u00a0 \n      ', problem: 'must not be only whitespace' },
    { password: '123456789012', problem: 'is in a list of commonly used passwords' },
    { password: 'qwertyuiop12', problem: 'is a commonly used password with small changes' },
    { password: 'password1234', problem: 'is a commonly used password with small changes' },
    { password: 'aaaaaaaaaaaa', problem: 'is a repeated character or pattern' },
    { password: 'abcdefghijkl', problem: 'is a sequence such as abcd or 1234' },
    { password: 'mallory-1990', context: ['mallory'], problem: 'is built on the username' },
    // The README's first command, and a phrase of unrelated words, pass.
    { password: 'change-me-please', problem: undefined },
    { password: 'correct horse battery staple', problem: undefined },
    { password: 'walk-password-1234', problem: undefined },
  ];
  for (const row of table) {
    it(`${JSON.stringify(row.password)}: ${row.problem ?? 'accepted'}`, () => {
      const problem = passwordWeakness(row.password, row.context);
      if (row.problem === undefined) expect(problem).to.equal(undefined);
      else expect(problem).to.match(new RegExp(`^${row.problem}`));
    });
  }
});
