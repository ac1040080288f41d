import { expect } from 'chai';
import { SOURCE_TYPES } from './source-types';
import { TOOL_TYPES, toolSettingSpecs } from './tool-types';

describe('the settings a type lists, read from the schema it is validated with', () => {
  it('a source type lists every field of its schema, described, its secrets and ignored fields marked', () => {
    const [http, ssh] = [1, 2].map((id) => SOURCE_TYPES.find((t) => t.id === id)!);
    for (const type of [http, ssh]) {
      expect(type.settings.map((s) => s.name)).to.have.members([
        'url',
        'branch_name',
        'auth_method',
        'login',
        'password',
        'ssh_private_key',
      ]);
      for (const setting of type.settings) expect(setting.description, setting.name).to.not.equal('');
    }
    const byName = (type: typeof http) => Object.fromEntries(type.settings.map((s) => [s.name, s]));
    expect(byName(http).url).to.include({ required: true, secret: false, ignored: false });
    expect(byName(http).password).to.include({ required: false, secret: true, ignored: false });
    expect(byName(http).ssh_private_key).to.include({ required: false, ignored: true });
    // The wording the schema states, not a second copy of it.
    expect(byName(http).auth_method.description).to.contain('when a login or password is given');
    expect(byName(ssh).ssh_private_key).to.include({ required: true, secret: true, ignored: false });
    expect(byName(ssh).login).to.include({ required: false, ignored: true });
  });

  it('a tool type lists its settings with the descriptions the document states', () => {
    const semgrep = toolSettingSpecs(TOOL_TYPES.find((t) => t.id === 1)!);
    const extraArgs = semgrep.find((s) => s.name === 'extra_args')!;
    expect(extraArgs.description).to.contain('--severity');
    expect(semgrep.find((s) => s.name === 'api_token')).to.include({ required: false, secret: true, ignored: true });
    const server = TOOL_TYPES.find((t) => t.kind === 'server')!;
    expect(toolSettingSpecs(server).find((s) => s.name === 'api_token')).to.include({
      required: true,
      secret: true,
      ignored: false,
    });
  });
});
