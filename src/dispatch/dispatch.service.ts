import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import {
  EMAIL_CAMPAIGN_SENT_V1,
  type EmailCampaignSentV1,
} from '../contracts/email-campaign-sent.v1';
import {
  EMAIL_DISPATCH_FAILED_V1,
  type EmailDispatchFailedV1,
} from '../contracts/email-dispatch-failed.v1';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { RESULT_SOURCE, resultEventId } from '../contracts/result-event';
import { parseEvent } from '../inbound/event.parser';
import type { InboundMessage } from '../inbound/inbound-message';
import { InvalidEventError } from '../inbound/invalid-event.error';
import { ResultPublisher } from '../outbound/result.publisher';
import { WelcomeTemplate } from '../templates/welcome/welcome.template';
import { VendorClient } from '../vendor/vendor.client';
import { VendorError } from '../vendor/vendor.errors';
import type { DispatchOutcome } from './dispatch-outcome';

/**
 * Takes one inbound record to its terminal outcome: parse, render, call the vendor, publish the
 * result. It resolves only once that outcome is on Kafka; a rejection means "no outcome yet" and
 * the record's offset must not be committed.
 */
@Injectable()
export class DispatchService {
  private readonly logger = new Logger(DispatchService.name);
  private readonly welcome = new WelcomeTemplate();

  constructor(
    private readonly config: AppConfig,
    @Inject(VendorClient) private readonly vendor: VendorClient,
    private readonly publisher: ResultPublisher,
  ) {}

  async dispatch(message: InboundMessage): Promise<DispatchOutcome> {
    let event: InboundEvent;
    try {
      event = await parseEvent(message);
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      await this.publisher.deadLetter(message, error);
      this.logger.warn(
        `dead-lettered ${message.topic}/${message.partition}@${message.offset}: ${error.code}`,
      );
      return { kind: 'dead-lettered', errorCode: error.code };
    }

    const rendered = this.welcome.render(event, this.config.sender);
    try {
      // One recipient, so exactly one entry; the batching pipeline replaces this.
      const [response] = await this.vendor.sendCampaign({
        ...rendered.content,
        recipients: { to: [rendered.recipient] },
      });
      if (!response.ok) throw response.error;
      const result: EmailCampaignSentV1 = {
        id: resultEventId(EMAIL_CAMPAIGN_SENT_V1, event.id, this.welcome.name),
        type: EMAIL_CAMPAIGN_SENT_V1,
        source: RESULT_SOURCE,
        time: new Date().toISOString(),
        correlationId: event.id,
        data: {
          sourceEventId: event.id,
          sourceEventType: event.type,
          template: this.welcome.name,
          requestId: response.requestId,
          message: response.message,
          campaignId: rendered.content.campaignId,
          recipientCount: 1,
        },
      };
      await this.publish(this.config.topics.campaignSent, message, result);
      return { kind: 'sent', requestId: response.requestId };
    } catch (error) {
      if (!(error instanceof VendorError) || error.retriable) throw error;
      const failed: EmailDispatchFailedV1 = {
        id: resultEventId(EMAIL_DISPATCH_FAILED_V1, event.id, this.welcome.name),
        type: EMAIL_DISPATCH_FAILED_V1,
        source: RESULT_SOURCE,
        time: new Date().toISOString(),
        correlationId: event.id,
        data: {
          sourceEventId: event.id,
          sourceEventType: event.type,
          template: this.welcome.name,
          errorCode: error.name,
          vendorStatus: error.status,
          retriable: false,
          message: error.message,
        },
      };
      await this.publish(this.config.topics.dispatchFailed, message, failed);
      return { kind: 'failed', errorCode: error.name };
    }
  }

  private publish(
    topic: string,
    source: InboundMessage,
    result: EmailCampaignSentV1 | EmailDispatchFailedV1,
  ) {
    return this.publisher.publish(topic, [
      {
        key: source.key,
        value: result,
        headers: {
          ...ResultPublisher.propagatedHeaders(source),
          'correlation-id': result.correlationId,
        },
      },
    ]);
  }
}
