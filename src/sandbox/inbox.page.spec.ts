import { InboxPage, languageOf } from './inbox.page';
import { esc, merge, mergeMessage } from './vendor-merge';
import { RELAY_PATH, type RecordedRequest } from './sandbox-options';

describe(InboxPage.name, () => {
  const entry = (body: unknown, response: unknown, path = RELAY_PATH): RecordedRequest => ({
    seq: 1,
    at: '2026-11-21T10:00:00.000Z',
    method: 'POST',
    path,
    headers: {},
    body,
    status: 200,
    response,
  });

  it('merges {{KEY}} placeholders and leaves unknown ones visible', () => {
    expect(merge('Hi {{ NAME }}, {{PLAN}} {{MISSING}}', { NAME: 'Ada', PLAN: 'pro' })).toBe(
      'Hi Ada, pro {{MISSING}}',
    );
    expect(merge('{{toString}}', {})).toBe('{{toString}}');
  });

  it('merges into the body escaped or as it is, as told, and into subject and preview as it is', () => {
    const campaign = { subject: 'Hi {{N}}', preview: '{{N}}!', body: '<p>{{N}}</p>' };
    const attributes = { N: "O'Brien & <Sons>" };
    expect(mergeMessage(campaign, attributes, true)).toEqual({
      subject: "Hi O'Brien & <Sons>",
      preview: "O'Brien & <Sons>!",
      body: '<p>O&#39;Brien &amp; &lt;Sons&gt;</p>',
    });
    expect(mergeMessage(campaign, attributes, false)).toEqual({
      subject: "Hi O'Brien & <Sons>",
      preview: "O'Brien & <Sons>!",
      body: "<p>O'Brien & <Sons></p>",
    });
  });

  it('keeps a body merged unescaped in the sandboxed iframe, escaped into its srcdoc', () => {
    const html = new InboxPage(false).detail(
      entry(
        {
          subject: 'Hi',
          body: '<p>{{N}}</p>',
          recipients: { to: [{ email: 'a@b.c', attributes: { N: '<script>x()</script>' } }] },
        },
        { requestId: 'r-1' },
      ),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('srcdoc="&lt;p&gt;&lt;script&gt;x()&lt;/script&gt;&lt;/p&gt;"');
    expect(html).toContain('<dd>values as they are</dd>');
  });

  it('escapes every character that could open markup or an attribute', () => {
    expect(esc(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('renders a campaign with values escaped and the body sandboxed', () => {
    const html = new InboxPage().detail(
      entry(
        {
          subject: 'Hi {{N}}',
          body: '<p>{{N}}</p>',
          recipients: {
            to: [{ name: '<b>x</b>', email: 'a@b.c', attributes: { N: '"><script>' } }],
          },
        },
        { requestId: 'r-1' },
      ),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('<iframe sandbox=""');
    // Escaped once for the HTML body, once more for the srcdoc attribute.
    expect(html).toContain('srcdoc="&lt;p&gt;&amp;quot;&amp;gt;&amp;lt;script&amp;gt;&lt;/p&gt;"');
  });

  it('lists campaigns and contact lists apart', () => {
    const html = new InboxPage().list(
      [
        entry({ subject: 'S', recipients: { to: [] } }, { requestId: 'r-1' }),
        { ...entry({ name: 'L<1>' }, { id: 'id-1' }, '/v1/contacts'), seq: 2 },
      ],
      2,
    );
    expect(html).toContain('Campaigns (1)');
    expect(html).toContain('Contact lists (1)');
    expect(html).toContain('L&lt;1&gt;');
  });

  it("shows each campaign's locale, from its body's <html lang dir>, and writes its text in it", () => {
    const arabic = entry(
      {
        subject: 'مرحبًا {{N}}',
        body: '<!doctype html>\n<html lang="ar" dir="rtl"><body><p>{{N}}</p></body></html>',
        recipients: { to: [{ email: 'a@b.c', attributes: { N: 'Ada' } }] },
      },
      { requestId: 'r-1' },
    );
    const bare = {
      ...entry({ subject: 'S', body: '<p>x</p>', recipients: { to: [] } }, {}),
      seq: 2,
    };
    const list = new InboxPage().list([arabic, bare], 2);
    expect(list).toContain('<th>Locale</th>');
    expect(list).toContain(
      '<a href="/inbox/1" lang="ar" dir="rtl">مرحبًا {{N}}</a></td><td>ar · rtl</td>',
    );
    expect(list).toContain('<a href="/inbox/2">S</a></td><td>—</td>');

    const detail = new InboxPage().detail(arabic);
    expect(detail).toContain('<dt>Locale</dt><dd>ar, right to left</dd>');
    expect(detail).toContain('<dt>Subject</dt><dd lang="ar" dir="rtl">مرحبًا Ada</dd>');
    expect(new InboxPage().detail(bare)).toContain(
      '<dt>Locale</dt><dd>(none: the body&#39;s &lt;html&gt; has no lang)</dd>',
    );
  });

  it.each([
    ['<html lang="ja">', { lang: 'ja' }],
    ["<HTML DIR='RTL' LANG='fa-IR' class=x>", { lang: 'fa-IR', dir: 'rtl' }],
    ['<html lang=de-AT>', { lang: 'de-AT' }],
    ['<html data-lang="ja" xlang="ja">', {}],
    ['<html lang="ja&quot;><script>" dir="sideways">', {}],
    ['<p lang="ja">no html element</p>', {}],
  ])('reads the language of %s', (body, expected) => {
    expect(languageOf(`<!doctype html>${body}<body></body></html>`)).toEqual(expected);
  });
});
