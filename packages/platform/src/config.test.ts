import { expect } from 'chai';
import { z } from 'zod';
import { ConfigError, env, loadConfig, readConfigs } from './config';

const portOf = (e: NodeJS.ProcessEnv) => loadConfig(z.object({ A_PORT: env.port(1) }), e).A_PORT;
const limitOf = (e: NodeJS.ProcessEnv) => loadConfig(z.object({ LIMIT: env.int(5, 1) }), e).LIMIT;

describe('reading several configurations at once', () => {
  it('returns what each reader read', () => {
    expect(readConfigs({ A_PORT: '80' }, { port: portOf, limit: limitOf })).to.deep.equal({ port: 80, limit: 5 });
  });

  it("names every reader's bad variables in one error, a variable two readers share once", () => {
    let error: unknown;
    try {
      readConfigs({ A_PORT: 'x', LIMIT: '0' }, { port: portOf, limit: limitOf, sameLimit: limitOf });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(':')[0])).to.deep.equal(['A_PORT', 'LIMIT']);
  });
});
