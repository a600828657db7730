import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config.loader';
import { CampaignTemplate } from './campaign.template';

const config = loadConfig({
  MAILBRIDGE_MODE: 'local',
  SENDER_FROM_NAME: 'Shop & Co',
  SENDER_FROM_EMAIL: 'hello@shop.example',
});

/** A default copy that a variant is checked against. */
const DEFAULT_COPY = {
  'greeting.subject.eta': 'Hello {{FIRST_NAME}}',
  'greeting.preview.eta': 'A greeting from <%= it.brand %>.',
  'greeting.body.eta': '<p>Hello {{FIRST_NAME}}, from <%= it.brand %></p>',
};

const GERMAN = {
  'greeting.subject.de.eta': 'Hallo {{FIRST_NAME}}',
  'greeting.preview.de.eta': 'Ein Gruß von <%= it.brand %>.',
  'greeting.body.de.eta': '<p>Hallo {{FIRST_NAME}}, von <%= it.brand %></p>',
};

describe(CampaignTemplate.name, () => {
  let root: string;
  let dir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'campaign-template-'));
    dir = join(root, 'templates', 'greeting');
    mkdirSync(dir, { recursive: true });
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  }

  function template(keys: readonly string[] = ['FIRST_NAME']) {
    return new CampaignTemplate<string>(
      { dir, name: 'greeting', campaignId: 'greeting-v1', attributeKeys: keys },
      config,
    );
  }

  it('serves each locale its copy and batches by locale, falling back to the default', () => {
    write({ ...DEFAULT_COPY, ...GERMAN });
    const greeting = template();

    expect(greeting.locales).toEqual(['en', 'de']);
    const german = greeting.copyFor('de-AT');
    expect(german).toMatchObject({ batchKey: 'greeting:de', locale: 'de' });
    expect(german.content).toMatchObject({
      subject: 'Hallo {{FIRST_NAME}}',
      body: '<p>Hallo {{FIRST_NAME}}, von Shop &amp; Co</p>',
      campaignId: 'greeting-v1',
    });
    expect(german.localeFallback).toBeUndefined();
    expect(greeting.copyFor(undefined)).toMatchObject({ batchKey: 'greeting:en', locale: 'en' });
    expect(greeting.copyFor(undefined)).not.toHaveProperty('localeFallback');
    expect(greeting.copyFor('xx')).toMatchObject({ locale: 'en', localeFallback: 'unknown' });
    expect(greeting.copyFor('de_AT')).toMatchObject({ locale: 'en', localeFallback: 'malformed' });
  });

  it("gives a variant's subject plain-text twins at a vendor that does not escape", () => {
    write({ ...DEFAULT_COPY, ...GERMAN });
    const unescaping = loadConfig({
      MAILBRIDGE_MODE: 'local',
      SENDER_FROM_NAME: 'Shop & Co',
      SENDER_FROM_EMAIL: 'hello@shop.example',
      VENDOR_MERGE_ESCAPES_HTML: 'false',
    });
    const greeting = new CampaignTemplate(
      { dir, name: 'greeting', campaignId: 'g', attributeKeys: ['FIRST_NAME'] },
      unescaping,
    );
    expect(greeting.copyFor('de').content.subject).toBe('Hallo {{FIRST_NAME_TEXT}}');
    expect(greeting.attributes({ FIRST_NAME: 'Bo & Al' })).toEqual({
      FIRST_NAME: 'Bo &amp; Al',
      FIRST_NAME_TEXT: 'Bo & Al',
    });
  });

  it.each([
    [
      'a part missing from a locale',
      { 'greeting.subject.de.eta': 'Hallo {{FIRST_NAME}}', 'greeting.body.de.eta': '<p>Hallo</p>' },
      'template templates/greeting/ lacks templates/greeting/greeting.preview.de.eta: a copy has all of subject, preview, body',
    ],
    [
      'a placeholder the planner does not provide',
      { ...GERMAN, 'greeting.body.de.eta': '<p>Hallo {{NICKNAME}}</p>' },
      'template file templates/greeting/greeting.body.de.eta uses {{NICKNAME}}, which its planner does not provide (attributeKeys)',
    ],
    [
      "other placeholders than the default's",
      { ...GERMAN, 'greeting.subject.de.eta': 'Hallo!' },
      'template file templates/greeting/greeting.subject.de.eta uses no placeholder where the default subject uses {{FIRST_NAME}}',
    ],
    [
      'braces that are no placeholder',
      { ...GERMAN, 'greeting.body.de.eta': '<p>Hallo {{FIRST NAME}}</p>' },
      'template file templates/greeting/greeting.body.de.eta has a {{ or }} that is not a {{KEY}} placeholder',
    ],
    [
      'a file that does not compile',
      { ...GERMAN, 'greeting.body.de.eta': '<p>Hallo <%= it.brand </p>' },
      'template file templates/greeting/greeting.body.de.eta does not compile',
    ],
    [
      'a file that does not render',
      { ...GERMAN, 'greeting.preview.de.eta': '<%= it.shop.name %>' },
      'template file templates/greeting/greeting.preview.de.eta does not render',
    ],
    [
      'a locale not in canonical form',
      { 'greeting.subject.de-at.eta': 'Hallo {{FIRST_NAME}}' },
      'template file templates/greeting/greeting.subject.de-at.eta: write its locale as de-AT',
    ],
    [
      'a locale that is no BCP 47 tag',
      { 'greeting.subject.de_AT.eta': 'Hallo {{FIRST_NAME}}' },
      "template file templates/greeting/greeting.subject.de_AT.eta: 'de_AT' is not a BCP 47 language tag",
    ],
    [
      'the default locale named',
      { 'greeting.body.en.eta': '<p>Hello {{FIRST_NAME}}</p>' },
      'template file templates/greeting/greeting.body.en.eta: the default copy is en; its files carry no locale',
    ],
    [
      'a part that is none of the three',
      { 'greeting.subjet.de.eta': 'Hallo {{FIRST_NAME}}' },
      'template file templates/greeting/greeting.subjet.de.eta is not named <template>.<subject|preview|body>[.<locale>].eta',
    ],
  ])('stops start-up on %s, naming the file', (_, files, message) => {
    write({ ...DEFAULT_COPY, ...files });
    expect(() => template()).toThrow(message);
  });

  it('stops start-up on a default copy without one of its parts', () => {
    write(DEFAULT_COPY);
    unlinkSync(join(dir, 'greeting.body.eta'));
    expect(() => template()).toThrow(
      'template templates/greeting/ lacks templates/greeting/greeting.body.eta',
    );
  });

  it('checks the default copy against the declared keys too', () => {
    write(DEFAULT_COPY);
    expect(() => template(['NAME'])).toThrow(
      'template file templates/greeting/greeting.subject.eta uses {{FIRST_NAME}}, which its planner does not provide (attributeKeys)',
    );
  });
});
