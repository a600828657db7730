import { InboxPage, esc, merge } from './inbox.page';
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
});
