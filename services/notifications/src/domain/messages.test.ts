import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import { NOTIFIABLE_EVENTS, WEBHOOK_PAYLOAD_VERSION, webhookJsonSchema } from '@bulwark/contracts';
import { EVENT_KINDS, projectOf } from './messages';

describe('notifications domain', () => {
  it('describes every notifiable event, with messages in English and Russian from its example', () => {
    expect(Object.keys(EVENT_KINDS)).to.have.members([...NOTIFIABLE_EVENTS]);
    for (const [type, kind] of Object.entries(EVENT_KINDS)) {
      const [en, ru] = kind.message(kind.example);
      expect(en, type).to.be.a('string').and.not.contain('undefined');
      expect(ru, type).to.be.a('string').and.not.contain('undefined');
      expect(ru, type).to.match(/[а-яё]/i);
    }
    expect(
      EVENT_KINDS['issues.ingested'].message({
        project_code: 'shop',
        created: 3,
        reopened: 1,
        fixed: 2,
        scan_result_id: 's',
      })[0],
    ).to.equal('Project shop: 3 new, 1 reopened and 2 fixed issues after scan s');
  });

  it('has a webhook body schema for every notifiable event that its example fits and a wrong version does not', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [type, kind] of Object.entries(EVENT_KINDS)) {
      const validate = ajv.compile(webhookJsonSchema(type));
      const [message, message_ru] = kind.message(kind.example);
      const body = {
        version: WEBHOOK_PAYLOAD_VERSION,
        id: 'e1',
        type,
        occurred_at: '2026-01-01T00:00:00.000Z',
        project_code: projectOf(kind.example),
        message,
        message_ru,
        data: kind.example,
      };
      expect(validate(body), `${type}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      expect(validate({ ...body, version: WEBHOOK_PAYLOAD_VERSION + 1 }), type).to.equal(false);
    }
  });

  it('finds the project of an event, or none for a report of several', () => {
    expect(projectOf({ project_code: 'a' })).to.equal('a');
    expect(projectOf({ project_codes: ['b'] })).to.equal('b');
    expect(projectOf({ project_codes: ['a', 'b'] })).to.equal(null);
    expect(projectOf({})).to.equal(null);
  });
});
