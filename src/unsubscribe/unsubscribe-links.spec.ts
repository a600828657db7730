import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { UNSUBSCRIBE_URL_ATTRIBUTE, UnsubscribeLinks } from './unsubscribe-links';
import { UnsubscribeTokens } from './unsubscribe-token';
import { tokenOf } from './unsubscribe.listener';

const config = { unsubscribe: { baseUrl: 'https://mail.example.com' } } as AppConfig;
const tokens = new UnsubscribeTokens([randomBytes(32).toString('base64')], 90 * 86_400);

describe(UnsubscribeLinks.name, () => {
  const links = new UnsubscribeLinks(tokens, config);

  it('gives each marketing recipient a link of its own that opens to its address', () => {
    const recipients = links.withLinks(
      [
        { email: 'ada@example.com', attributes: { NAME: 'Ada' } },
        {
          email: 'grace@example.com',
          attributes: { [UNSUBSCRIBE_URL_ATTRIBUTE]: 'https://evil.example' },
        },
      ],
      'marketing',
    );
    const [ada, grace] = recipients.map((r) => r.attributes![UNSUBSCRIBE_URL_ATTRIBUTE]);
    expect(ada).toMatch(
      /^https:\/\/mail\.example\.com\/unsubscribe\/[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/,
    );
    expect(recipients[0].attributes!.NAME).toBe('Ada');
    const opened = tokens.open(tokenOf(new URL(grace).pathname)!);
    expect(opened).toMatchObject({
      ok: true,
      claim: { address: 'grace@example.com', category: 'marketing' },
    });
    expect(tokens.open(tokenOf(new URL(ada).pathname)!)).toMatchObject({
      claim: { address: 'ada@example.com' },
    });
  });

  it('leaves transactional recipients, and every recipient without a key, as they are', () => {
    const recipients = [{ email: 'ada@example.com' }];
    expect(links.withLinks(recipients, 'transactional')).toBe(recipients);
    expect(new UnsubscribeLinks(undefined, config).withLinks(recipients, 'marketing')).toBe(
      recipients,
    );
  });
});
