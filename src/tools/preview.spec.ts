import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPreview } from './preview';
import { bodyText } from './preview/preview-files';
import { PreviewUsageError } from './preview/preview-options';
import { EVENT_TYPE_PREVIEWS } from './preview/sample-events';
import { PreviewError } from './preview/template-preview';

// A preview needs no broker and no Redis: the tool must not even load their clients.
jest.mock('kafkajs', () => {
  throw new Error('the preview loaded kafkajs');
});
jest.mock('ioredis', () => {
  throw new Error('the preview loaded ioredis');
});

/** Settings that would reach nothing: a preview that used them would fail. */
const UNREACHABLE = {
  KAFKA_BROKERS: '127.0.0.1:1',
  IDEMPOTENCY_STORE: 'redis',
  REDIS_URL: 'redis://127.0.0.1:1',
  VENDOR_RELAY_BASE_URL: 'http://127.0.0.1:1/relay/v1',
};
const ENV = { ...UNREACHABLE, SENDER_FROM_NAME: 'Bread & Butter' };

describe('npm run preview', () => {
  let dir: string;
  let printed: string[];
  const print = (line: string) => printed.push(line);
  const run = (argv: string[], env: Record<string, string> = ENV) =>
    runPreview([...argv, '--out', join(dir, 'out')], env, print);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailbridge-preview-'));
    printed = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function eventFile(patch: (data: Record<string, unknown>) => void, type = 'user.signed_up.v1') {
    const event = structuredClone(EVENT_TYPE_PREVIEWS[type].sample);
    patch(event.data as Record<string, unknown>);
    const path = join(dir, 'event.json');
    writeFileSync(path, JSON.stringify(event));
    return path;
  }

  it('would fail here if the tool loaded the client of the broker or of Redis', () => {
    expect(() => jest.requireActual<object>('../kafka/kafka.provider')).toThrow(
      'the preview loaded kafkajs',
    );
    expect(() => jest.requireActual<object>('../redis/redis.connection')).toThrow(
      'the preview loaded ioredis',
    );
  });

  it('writes the HTML and the text summary of a locale, and prints the summary', async () => {
    const files = await run(['welcome', '--locale', 'de']);
    expect(files).toEqual({
      html: join(dir, 'out', 'welcome.de.html'),
      text: join(dir, 'out', 'welcome.de.txt'),
    });
    const text = readFileSync(files!.text, 'utf8');
    expect(text).toContain('Template:        welcome (user.signed_up.v1, sample event)\n');
    expect(text).toContain('Locale asked:    de\n');
    expect(text).toContain('Copy used:       de (the copy of the locale asked)\n');
    expect(text).toContain('Subject:         Willkommen bei Bread & Butter, Zoë\n');
    expect(text).toContain('Preview:         Ihr Konto bei Bread & Butter ist bereit.\n');
    expect(text).toContain("  FULL_NAME   Zoë O'Brien\n");
    expect(text).toContain(
      '\n  Hallo Zoë,\n\n  vielen Dank für Ihre Anmeldung bei Bread & Butter. Ihr Konto (trial) ist bereit.\n',
    );
    expect(printed.join('\n')).toContain(text.trimEnd());
    expect(printed.join('\n')).toContain(files!.html);

    const html = readFileSync(files!.html, 'utf8');
    expect(html).toContain('<title>Willkommen bei Bread &amp; Butter, Zoë</title>');
    expect(html).toContain('<dd lang="de">Ihr Konto bei Bread &amp; Butter ist bereit.</dd>');
    // The email's own document, escaped once more into srcdoc: lang kept, value merged.
    expect(html).toContain('srcdoc="&lt;!doctype html&gt;\n&lt;html lang=&quot;de&quot;&gt;');
    expect(html).toContain('&lt;p&gt;Hallo Zoë,&lt;/p&gt;');
  });

  it('writes a right-to-left copy with its direction, and money and dates in its locale', async () => {
    const files = await run(['order-confirmation', '--locale', 'ar']);
    const text = readFileSync(files!.text, 'utf8');
    expect(text).toContain('Subject:         تم تأكيد طلبك Order#1001 من Bread & Butter\n');
    expect(text).toContain('  PLACED_AT   22 نوفمبر 2026\n');
    // The item lines stay lines: the body keeps them with `white-space: pre-line`.
    expect(text).toMatch(/\n {2}2 × Green tea & honey — [^\n]+\n {2}1 × Teapot — [^\n]+\n/);
    expect(readFileSync(files!.html, 'utf8')).toContain('<dd lang="ar" dir="rtl">');
  });

  it.each([
    ['pt-BR', 'en', 'no copy for pt-BR or a shorter form of it: the default copy', 'pt-BR'],
    ['de-AT', 'de', 'the closest copy to de-AT', 'de-AT'],
    ['de_DE', 'en', "'de_DE' is not a BCP 47 tag: the default copy", 'de_DE'],
  ])('names the copy used for %s and why', async (asked, used, why, fileLocale) => {
    const files = await run(['welcome', '--locale', asked]);
    expect(files!.text).toBe(join(dir, 'out', `welcome.${fileLocale}.txt`));
    const text = readFileSync(files!.text, 'utf8');
    expect(text).toContain(`Locale asked:    ${asked}\n`);
    expect(text).toContain(`Copy used:       ${used} (${why})\n`);
  });

  it("says so when the contract ignores the event's locale, as the service would", async () => {
    const files = await run(['welcome', '--locale', 'x'.repeat(40)]);
    expect(files!.text).toBe(join(dir, 'out', 'welcome.en.txt'));
    expect(readFileSync(files!.text, 'utf8')).toContain(
      `Copy used:       en (the contract ignores '${'x'.repeat(40)}', not a usable locale tag, so the default copy)\n`,
    );
  });

  it('renders the default copy for an event without a locale', async () => {
    const files = await run(['welcome']);
    expect(readFileSync(files!.text, 'utf8')).toContain(
      'Locale asked:    (none)\nCopy used:       en (the event names no locale: the default copy)\n',
    );
  });

  it('renders an event from a file, with --locale replacing its own', async () => {
    const event = eventFile((data) => {
      data.name = 'Kai Müller';
      data.locale = 'fr';
    });
    const files = await run(['welcome', '--event', event, '--locale', 'es']);
    const text = readFileSync(files!.text, 'utf8');
    expect(text).toContain(`Template:        welcome (user.signed_up.v1, ${event})\n`);
    expect(text).toContain('Subject:         Te damos la bienvenida a Bread & Butter, Kai\n');
    expect((await run(['welcome', '--event', event]))!.text).toMatch(/welcome\.fr\.txt$/);
  });

  describe('merges as the vendor is configured to, as the sandbox does', () => {
    const markup = () => eventFile((data) => (data.name = 'A&B<i>x</i> Smith'));

    it('escaping: the values as they are, HTML-escaped into the body by the merge', async () => {
      const files = await run(['welcome', '--event', markup()]);
      const text = readFileSync(files!.text, 'utf8');
      expect(text).toContain('Merge:           values HTML-escaped into the body');
      expect(text).toContain('Subject:         Welcome to Bread & Butter, A&B<i>x</i>\n');
      expect(text).toContain('  FIRST_NAME  A&B<i>x</i>\n');
      expect(text).not.toContain('FIRST_NAME_TEXT');
      expect(text).toContain('  Hello A&B<i>x</i>,\n');
      expect(readFileSync(files!.html, 'utf8')).toContain('Hello A&amp;amp;B&amp;lt;i&amp;gt;x');
    });

    it.each([
      ['VENDOR_MERGE_ESCAPES_HTML', [], { ...ENV, VENDOR_MERGE_ESCAPES_HTML: 'false' }],
      ['--merge-escapes-html', ['--merge-escapes-html', 'false'], ENV],
      [
        '--merge-escapes-html over the setting',
        ['--merge-escapes-html', 'false'],
        { ...ENV, VENDOR_MERGE_ESCAPES_HTML: 'true' },
      ],
    ])(
      'not escaping, as %s says: the planner escapes, with twins for the subject',
      async (_, flags, env) => {
        const files = await run(['welcome', '--event', markup(), ...flags], env);
        const text = readFileSync(files!.text, 'utf8');
        expect(text).toContain(
          'Merge:           values as they are (VENDOR_MERGE_ESCAPES_HTML=false)',
        );
        expect(text).toContain('Subject:         Welcome to Bread & Butter, A&B<i>x</i>\n');
        expect(text).toContain('  FIRST_NAME       A&amp;B&lt;i&gt;x&lt;/i&gt;\n');
        expect(text).toContain('  FIRST_NAME_TEXT  A&B<i>x</i>\n');
        expect(text).toContain('  Hello A&B<i>x</i>,\n');
      },
    );
  });

  describe('refuses what it cannot preview, saying why', () => {
    it.each([
      [
        ['welcome', '--event', '/nonexistent/event.json'],
        /--event \/nonexistent\/event\.json cannot be read \(ENOENT\)/,
      ],
      [
        ['nope'],
        /^there is no template named 'nope'; templates with copy to preview: order-confirmation, welcome$/,
      ],
      [
        ['new-customers'],
        /^new-customers fills contact lists: it has no subject, preview or body to render; templates with copy to preview: order-confirmation, welcome$/,
      ],
      [
        ['campaign-command'],
        /no sample email\.campaign\.requested\.v1 event .* give one with --event FILE/,
      ],
    ])('%j', async (argv, message) => {
      await expect(run(argv)).rejects.toThrow(PreviewError);
      await expect(run(argv)).rejects.toThrow(message);
    });

    it('an event file that is not JSON, or not an object', async () => {
      const path = join(dir, 'event.json');
      writeFileSync(path, '{"type":');
      await expect(run(['welcome', '--event', path])).rejects.toThrow(`${path} is not JSON`);
      writeFileSync(path, '[]');
      await expect(run(['welcome', '--event', path])).rejects.toThrow(
        `${path} is not a JSON object`,
      );
    });

    it("an event of another type than the template's", async () => {
      const path = eventFile(() => undefined, 'order.placed.v1');
      await expect(run(['welcome', '--event', path])).rejects.toThrow(
        `${path} holds an event of type order.placed.v1; template welcome renders user.signed_up.v1 events`,
      );
    });

    it('an event the service would refuse, with the reason the service gives', async () => {
      const path = eventFile((data) => delete data.email);
      await expect(run(['welcome', '--event', path])).rejects.toThrow(
        `${path} is refused as the service would refuse it: user.signed_up.v1 is invalid: data.email`,
      );
    });

    it.each([
      [[], 'name the template to preview'],
      [['welcome', 'order-confirmation'], 'name one template'],
      [['welcome', '--merge-escapes-html', 'yes'], '--merge-escapes-html must be true or false'],
      [['welcome', '--locale'], "Option '--locale <value>' argument missing"],
      [['welcome', '--colour'], "Unknown option '--colour'"],
    ])('bad arguments %j', async (argv, message) => {
      const attempt = runPreview(argv, ENV, print);
      await expect(attempt).rejects.toThrow(PreviewUsageError);
      await expect(runPreview(argv, ENV, print)).rejects.toThrow(message);
    });

    it('a copy setting the service would refuse', async () => {
      await expect(
        run(['welcome'], { ...ENV, TEMPLATE_TIME_ZONE: 'Mars/Olympus' }),
      ).rejects.toThrow(/TEMPLATE_TIME_ZONE must be an IANA time zone/);
    });
  });
});

describe(bodyText.name, () => {
  it('puts blocks on lines of their own and collapses the white space HTML collapses', () => {
    const html = `<!doctype html><html lang="en"><head><title>T</title><style>p{}</style></head>
      <body>
        <h1>Hi   there</h1>
        <p>One
           paragraph,<br>two lines.</p>
        <!-- not shown -->
        <ul><li>a</li><li>b</li></ul>
      </body></html>`;
    expect(bodyText(html)).toBe('Hi there\n\nOne paragraph,\ntwo lines.\n\na\n\nb');
  });

  it('keeps the line breaks of pre and white-space: pre-line, and decodes references', () => {
    expect(
      bodyText(
        '<p style="white-space: pre-line">1 × Tea &amp; &lt;cake&gt;\n2 × Mug&#39;s&#x2014;&nbsp;x</p><p>a\nb</p>',
      ),
    ).toBe("1 × Tea & <cake>\n2 × Mug's—\u00a0x\n\na b");
    expect(bodyText('<pre>a\nb</pre>')).toBe('a\nb');
    expect(bodyText('<p>&unknown; &#0;</p>')).toBe('&unknown; &#0;');
  });
});
