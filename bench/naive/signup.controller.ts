import { Controller, Inject } from '@nestjs/common';
import { ClientKafka, EventPattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { naiveConfig, RESULTS_CLIENT } from './naive.config';
import { postJson } from './vendor-fetch';

/**
 * The handler a newcomer writes from the NestJS Kafka docs: one event in, one vendor call, one
 * result out. It awaits the vendor and the emit, so a result is on Kafka before the offset is
 * committed, the same guarantee mailbridge gives.
 */
@Controller()
export class SignupController {
  constructor(@Inject(RESULTS_CLIENT) private readonly results: ClientKafka) {}

  @EventPattern<string>(naiveConfig.topics.userSignedUp)
  async onUserSignedUp(@Payload() event: UserSignedUpV1): Promise<void> {
    const firstName = event.data.name.split(' ')[0];
    const sent = await postJson<{ requestId: string; message: string }>(
      `${naiveConfig.relayBaseUrl}/email/campaign`,
      { 'x-relay-access-token': naiveConfig.relayToken },
      {
        subject: 'Welcome aboard, {{FIRST_NAME}}',
        preview: 'Your account is ready.',
        body:
          '<p>Hello {{FIRST_NAME}},</p>' +
          '<p>Your {{PLAN}} account is ready. Thank you for signing up.</p>',
        campaignId: 'welcome-v1',
        sender: { from: naiveConfig.from },
        recipients: {
          to: [
            {
              name: event.data.name,
              email: event.data.email,
              attributes: {
                FIRST_NAME: firstName,
                FULL_NAME: event.data.name,
                PLAN: event.data.plan ?? 'free',
                USER_ID: event.data.userId,
              },
            },
          ],
        },
      },
    );
    await lastValueFrom(
      this.results.emit(naiveConfig.topics.campaignSent, {
        key: event.data.userId,
        // A structured-mode CloudEvent, as mailbridge writes results with RESULT_EVENT_MODE=structured.
        headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
        value: {
          id: `${event.id}:welcome`,
          type: 'email.campaign.sent.v1',
          source: 'naive',
          time: new Date().toISOString(),
          specversion: '1.0',
          datacontenttype: 'application/json',
          sourceeventid: event.id,
          data: { sourceEventId: event.id, requestId: sent.requestId, recipientCount: 1 },
        },
      }),
    );
  }
}
