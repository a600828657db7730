import { VendorRequestError } from './vendor.errors';
import { checkCampaign, checkContactList } from './vendor-request.validator';
import type { CampaignRequest, ContactListRequest } from './vendor.types';

const base: CampaignRequest = {
  subject: 'Hello {{FIRST_NAME}}',
  body: 'Line one\r\nLine two', // bodies may break lines; only header material may not
  sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
  recipients: {
    to: [{ name: 'Ada', email: 'ada@example.com', attributes: { FIRST_NAME: 'Ada' } }],
  },
};

describe(checkCampaign.name, () => {
  it('accepts a well-formed campaign', () => {
    expect(checkCampaign(base)).toEqual({ sendable: [0], refused: [] });
  });

  it.each([
    [
      'a CR/LF in the subject',
      { subject: 'Hi\r\nBcc: all@example.com' },
      'subject contains a line break',
    ],
    ['a U+2028 in the subject', { subject: 'Hi\u2028there' }, 'subject contains a line break'],
    ['a U+2029 in the campaignId', { campaignId: 'a\u2029b' }, 'campaignId contains a line break'],
    [
      'a LF in the sender name',
      { sender: { from: { name: 'Shop\nX', email: 'a@b.c' } } },
      'sender.from: name',
    ],
    [
      'a CR in the reply-to email',
      { sender: { replyTo: { name: 'S', email: 'a@b.c\r' } } },
      'sender.replyTo: email',
    ],
    [
      'a LF in a custom header',
      { headers: { 'X-HEADER-1': 'a\nBcc: x@y.z' } },
      'headers.X-HEADER-1 contains',
    ],
    [
      'a CR in List-Unsubscribe',
      { headers: { 'List-Unsubscribe': '<https://u.test/x>\r' } },
      'line break',
    ],
    [
      'an http: List-Unsubscribe',
      { headers: { 'List-Unsubscribe': '<http://u.test/x>' } },
      'https: or mailto:',
    ],
    [
      'a javascript: List-Unsubscribe',
      { headers: { 'List-Unsubscribe': 'javascript:alert(1)' } },
      'https: or mailto:',
    ],
    [
      'one bad URI among good ones',
      { headers: { 'List-Unsubscribe': '<mailto:u@x.y>, <ftp://x>' } },
      'https: or mailto:',
    ],
    [
      'a header that is not X-',
      { headers: { Bcc: 'x@y.z' } },
      'only List-Unsubscribe and X- headers',
    ],
    [
      'a header name with a colon',
      { headers: { 'X-A:B': 'v' } },
      'only List-Unsubscribe and X- headers',
    ],
    ['a numeric subject', { subject: 5 }, 'subject must be a string'],
    ['a bidi override in the subject', { subject: 'Invoice \u202Egnp.exe' }, 'invisible'],
    ['a NUL in the preview', { preview: 'a\u0000b' }, 'preview contains a line break'],
    ['a tab in the subject', { subject: 'a\tb' }, 'subject contains a control'],
    ['a subject of 999 characters', { subject: 'x'.repeat(999) }, 'longer than 998'],
    [
      'a zero-width space in the sender address',
      { sender: { from: { name: 'S', email: 'shop\u200B@shop.example' } } },
      'sender.from: email contains a control or invisible character',
    ],
    ['a string disableTrackingLinks', { disableTrackingLinks: 'yes' }, 'must be a boolean'],
    [
      'recipients that are not an array',
      { recipients: { to: 'ada@example.com' } },
      'recipients.to must be an array',
    ],
  ])('refuses %s', (_, override, message) => {
    const request = { ...base, ...override } as unknown as CampaignRequest;
    expect(() => checkCampaign(request)).toThrow(VendorRequestError);
    expect(() => checkCampaign(request)).toThrow(message);
  });

  it('accepts https: and mailto: unsubscribe targets, bare or in angle brackets', () => {
    for (const value of ['<https://s.example/u>, <mailto:u@s.example>', 'https://s.example/u']) {
      expect(() =>
        checkCampaign({ ...base, headers: { 'List-Unsubscribe': value } }),
      ).not.toThrow();
    }
  });

  it('refuses single recipients, naming the field and never the value', () => {
    const to = [
      { email: 'ok@example.com' },
      { email: 'not-an-address' },
      { email: 'eve@example.com', name: 'Eve\nBcc: x@y.z' },
      { email: 'm@example.com', attributes: { FIRST_NAME: 'M\r\nBcc: x@y.z' } },
      { email: 'n@example.com', attributes: { OTHER: 'multi\nline is fine outside the subject' } },
      { email: 'o@example.com', attributes: { FIRST_NAME: 7 } },
    ] as CampaignRequest['recipients']['to'];

    const check = checkCampaign({ ...base, recipients: { to } });

    expect(check.sendable).toEqual([0, 4]);
    expect(check.refused).toEqual([
      { index: 1, problem: 'recipients.to[1]: email is not an email address' },
      { index: 2, problem: 'recipients.to[2]: name contains a line break' },
      {
        index: 3,
        problem:
          'recipients.to[3]: attributes.FIRST_NAME is used in the subject and contains a line break',
      },
      { index: 5, problem: 'recipients.to[5]: attributes.FIRST_NAME must be a string' },
    ]);
    expect(JSON.stringify(check)).not.toContain('Bcc');
  });

  it('sends an address once per request, whatever its case or Unicode form', () => {
    const to = [
      { email: 'Ada@Example.com' },
      { email: 'ada@example.COM' },
      { email: 'jos\u00e9@example.com' },
      { email: 'jose\u0301@example.com' }, // the same address, decomposed
    ] as CampaignRequest['recipients']['to'];
    const check = checkCampaign({ ...base, recipients: { to } });
    expect(check.sendable).toEqual([0, 2]);
    expect(check.refused.map((r) => r.problem)).toEqual([
      "recipients.to[1]: repeats an earlier recipient's address",
      "recipients.to[3]: repeats an earlier recipient's address",
    ]);
  });

  it('refuses invisible characters in addresses and names, and keeps the joiners names need', () => {
    const to = [
      { email: 'a\u200D@example.com' },
      { email: 'b@example.com', name: 'Eve \u2066admin\u2069' },
      { email: 'c@example.com', name: '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645' }, // ZWNJ in Persian
      { email: 'd@example.com', name: 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}' },
      { email: 'e@example.com', attributes: { 'FIRST NAME': 'x' } },
      { email: 'f@example.com', attributes: { ADDRESS: 'street\nline two', BELL: 'a\u0007' } },
    ] as CampaignRequest['recipients']['to'];
    const check = checkCampaign({ ...base, recipients: { to } });
    expect(check.sendable).toEqual([2, 3]);
    expect(check.refused.map((r) => r.problem)).toEqual([
      'recipients.to[0]: email contains a control or invisible character',
      'recipients.to[1]: name contains a control or invisible character',
      'recipients.to[4]: an attribute name is not a plain word',
      'recipients.to[5]: attributes.BELL contains a control character',
    ]);
  });
});

describe(checkContactList.name, () => {
  it('accepts a list with all eighteen member fields', () => {
    const member = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      source: 'sales_force',
      birthday: '2020-01-01',
      tags: ['vip'],
      currency: 'SOS',
      country: 'Argentina',
      province: 'P',
      city: 'C',
      address1: 'A1',
      address2: 'A2',
      phone: '(123) 456-7890',
      postalCode: '1000',
      company: 'Co',
      lastPurchaseOrder: 'O-1',
      lastPurchasePrice: '3500',
      latestOrderId: 'Order#50993961',
    };
    expect(Object.keys(member)).toHaveLength(18);
    expect(() => checkContactList({ name: 'List', members: [member] })).not.toThrow();
    expect(() => checkContactList({ name: 'List' })).not.toThrow();
  });

  it.each([
    ['no name', { name: '' }, 'name is required'],
    ['a blank name', { name: '  ' }, 'name is required'],
    ['members that are not an array', { name: 'L', members: {} }, 'members must be an array'],
    [
      'a member without email',
      { name: 'L', members: [{ firstName: 'A' }] },
      'members[0].email is required',
    ],
    [
      'a malformed email',
      { name: 'L', members: [{ email: 'a b@c' }] },
      'members[0].email is not an email',
    ],
    [
      'a numeric price',
      { name: 'L', members: [{ email: 'a@b.c', lastPurchasePrice: 3500 }] },
      'lastPurchasePrice must be a string',
    ],
    [
      'the same address twice, differing in case',
      { name: 'L', members: [{ email: 'a@b.c' }, { email: 'A@B.C' }] },
      "members[1].email repeats an earlier member's address",
    ],
    [
      'a line break in a member field',
      { name: 'L', members: [{ email: 'a@b.c', city: 'X\r\nY' }] },
      'members[0].city contains a line break',
    ],
    [
      'an invisible character in a tag',
      { name: 'L', members: [{ email: 'a@b.c', tags: ['vip\u200B'] }] },
      'members[0].tags contains a control or invisible character',
    ],
    ['a line break in the list name', { name: 'L\nX' }, 'name contains a line break'],
    [
      'tags as a string',
      { name: 'L', members: [{ email: 'a@b.c', tags: 'vip' }] },
      'tags must be an array of strings',
    ],
  ])('refuses %s', (_, request, message) => {
    expect(() => checkContactList(request as unknown as ContactListRequest)).toThrow(message);
  });
});
