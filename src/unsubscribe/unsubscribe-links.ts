import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { CampaignRecipient } from '../email-api/vendor.types';
import type { TemplateCategory } from './suppression-writer';
import type { UnsubscribeTokens } from './unsubscribe-token';
import { UNSUBSCRIBE_TOKENS } from './unsubscriber';

/** The attribute each recipient of a marketing campaign gets: `{{UNSUBSCRIBE_URL}}` in a body. */
export const UNSUBSCRIBE_URL_ATTRIBUTE = 'UNSUBSCRIBE_URL';

/**
 * Each recipient's own one-click link, as an attribute the vendor merges into the body. Not the
 * `List-Unsubscribe` header: that is one per request, and the vendor does not say it merges
 * attributes into headers, so a header per recipient would cost a request per recipient
 * (docs/architecture.md, _The List-Unsubscribe header_).
 */
@Injectable()
export class UnsubscribeLinks {
  private readonly base: string;

  constructor(
    @Inject(UNSUBSCRIBE_TOKENS) private readonly tokens: UnsubscribeTokens | undefined,
    config: AppConfig,
  ) {
    this.base = `${config.unsubscribe.baseUrl}/unsubscribe/`;
  }

  /** The link for one address, or none without `UNSUBSCRIBE_TOKEN_KEY`. */
  linkFor(address: string, category: TemplateCategory): string | undefined {
    return this.tokens && this.base + this.tokens.seal(address, category);
  }

  /**
   * The recipients of a marketing campaign, each with its link (replacing an attribute of the
   * same name: only a link sealed here unsubscribes); others, and every recipient without a key,
   * as they are.
   */
  withLinks(recipients: CampaignRecipient[], category: TemplateCategory): CampaignRecipient[] {
    if (!this.tokens || category !== 'marketing') return recipients;
    return recipients.map((recipient) => ({
      ...recipient,
      attributes: {
        ...recipient.attributes,
        [UNSUBSCRIBE_URL_ATTRIBUTE]: this.linkFor(recipient.email, category)!,
      },
    }));
  }
}
