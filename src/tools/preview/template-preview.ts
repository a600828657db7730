import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../../config/app-config';
import { ConfigModule } from '../../config/config.module';
import type { InboundEvent } from '../../contracts/inbound-contracts';
import { eventOf } from '../../inbound/event.parser';
import { InvalidEventError } from '../../inbound/invalid-event.error';
import { typesByTopic } from '../../inbound/topic-types';
import { mergeMessage, type MergedMessage } from '../../sandbox/vendor-merge';
import type { LocaleFallback } from '../../templates/locale.fallback';
import type { CampaignAction, Planner } from '../../templates/planner';
import { PlannerRegistry } from '../../templates/planner.registry';
import { TemplatesModule } from '../../templates/templates.module';
import { EVENT_TYPE_PREVIEWS, type EventJson } from './sample-events';

/** A mistake in what the author asked for, told without a stack: the tool exits 1. */
export class PreviewError extends Error {
  override readonly name = 'PreviewError';
}

export interface PreviewRequest {
  template: string;
  /** Replaces the reader's locale in the event. */
  locale?: string;
  /** The event (a CloudEvents structured event, as published) and where it came from. */
  event?: { json: string; from: string };
}

/** One template's email as its sample recipient reads it, and how its copy was chosen. */
export interface TemplatePreview {
  template: string;
  eventType: string;
  /** `sample event`, or the file the event was read from. */
  eventFrom: string;
  /** The reader's locale in the event, as given (after `--locale`); undefined when none. */
  requestedLocale?: string;
  /** The contract ignored the requested locale, as the service would (it is not a locale). */
  localeIgnored: boolean;
  /** The copy's locale. */
  locale: string;
  /** Why the copy is not the requested locale's, when the event asked for one. */
  localeFallback?: LocaleFallback;
  escapesHtml: boolean;
  sender: CampaignAction['content']['sender'];
  recipient: CampaignAction['recipients'][number];
  message: MergedMessage;
}

/**
 * Renders templates as the service plans them and as the sandbox merges them: the planners come
 * from the same folder scan as the service's (`TemplatesModule`), an event is validated by the
 * service's own parser, and the sample recipient's attributes are merged by the sandbox's
 * `mergeMessage`. Nothing here opens a connection: the templates and the parser need none.
 */
export class TemplatePreviewer {
  private constructor(
    private readonly planners: readonly Planner[],
    private readonly config: AppConfig,
  ) {}

  /** Loads every template's copies, as the service does at start-up. */
  static async create(config: AppConfig): Promise<TemplatePreviewer> {
    let app;
    try {
      // abortOnError false: a template that does not compile is reported, not a process abort.
      app = await NestFactory.createApplicationContext(PreviewModule.with(config), {
        logger: false,
        abortOnError: false,
      });
    } catch (error) {
      throw new PreviewError(`the templates do not load: ${(error as Error).message}`);
    }
    const planners = app.get(PlannerRegistry).planners();
    await app.close();
    return new TemplatePreviewer(planners, config);
  }

  /**
   * The templates with copy to preview: those whose sample event plans a campaign in a locale.
   * (A command's campaign is its sender's copy, in no locale of ours; a contact list has none.)
   */
  campaignTemplates(): string[] {
    return this.planners
      .filter((planner) => {
        const known = EVENT_TYPE_PREVIEWS[planner.eventType];
        if (!known) return false;
        const action = planner.plan(this.validated(planner, structuredClone(known.sample)));
        return action.kind === 'campaign' && action.locale !== undefined;
      })
      .map((planner) => planner.name)
      .sort();
  }

  preview(request: PreviewRequest): TemplatePreview {
    const planner = this.planners.find((p) => p.name === request.template);
    if (!planner) {
      throw new PreviewError(
        `there is no template named '${request.template}'; ${this.templatesWithCopy()}`,
      );
    }
    const known = EVENT_TYPE_PREVIEWS[planner.eventType];
    const plain = request.event
      ? parsedEvent(request.event)
      : structuredClone(known?.sample ?? noSample(planner));
    if (plain.type !== planner.eventType) {
      throw new PreviewError(
        `${request.event?.from ?? 'the event'} holds ${describeType(plain.type)}; ` +
          `template ${planner.name} renders ${planner.eventType} events`,
      );
    }
    if (request.locale !== undefined) {
      if (!known) {
        throw new PreviewError(
          `--locale: where ${planner.eventType} carries a reader's locale is not known here; ` +
            `set it in the event (src/tools/preview/sample-events.ts lists the types known)`,
        );
      }
      setAt(plain, known.localePath, request.locale, request.event?.from ?? 'the sample event');
    }
    const requestedLocale = stringAt(plain, known?.localePath);
    const event = this.validated(planner, plain, request.event?.from);
    const action = planner.plan(event);
    if (action.kind !== 'campaign') {
      throw new PreviewError(
        `${planner.name} fills contact lists: it has no subject, preview or body to render; ` +
          this.templatesWithCopy(),
      );
    }
    // A planner plans one recipient per event.
    const [recipient] = action.recipients;
    const escapesHtml = this.config.vendor.mergeEscapesHtml;
    return {
      template: planner.name,
      eventType: planner.eventType,
      eventFrom: request.event?.from ?? 'sample event',
      requestedLocale,
      localeIgnored:
        requestedLocale !== undefined && stringAt(event, known?.localePath) === undefined,
      locale: action.locale ?? 'none',
      localeFallback: action.localeFallback,
      escapesHtml,
      sender: action.content.sender,
      recipient,
      message: mergeMessage(action.content, recipient.attributes ?? {}, escapesHtml),
    };
  }

  private templatesWithCopy(): string {
    return `templates with copy to preview: ${this.campaignTemplates().join(', ')}`;
  }

  /** The event as the service's consumer reads it off the planner's topic, or why not. */
  private validated(planner: Planner, plain: EventJson, from = 'the sample event'): InboundEvent {
    const types = typesByTopic(this.config.topics);
    const topic = [...types].find(([, accepted]) => accepted.has(planner.eventType))![0];
    try {
      return eventOf(
        {
          topic,
          partition: 0,
          offset: '0',
          timestamp: '0',
          key: null,
          value: Buffer.from(JSON.stringify(plain)),
          headers: {},
        },
        { maxBytes: this.config.consumer.maxEventBytes, typesByTopic: types },
      );
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      throw new PreviewError(`${from} is refused as the service would refuse it: ${error.message}`);
    }
  }
}

@Module({})
class PreviewModule {
  static with(config: AppConfig): DynamicModule {
    return { module: PreviewModule, imports: [ConfigModule.forRoot(config), TemplatesModule] };
  }
}

function parsedEvent(event: { json: string; from: string }): EventJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.json);
  } catch (error) {
    throw new PreviewError(`${event.from} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PreviewError(`${event.from} is not a JSON object (an event, as published)`);
  }
  return parsed as EventJson;
}

function noSample(planner: Planner): never {
  throw new PreviewError(
    `there is no sample ${planner.eventType} event to render ${planner.name} with; ` +
      `give one with --event FILE (or add a sample to src/tools/preview/sample-events.ts)`,
  );
}

/** Sets the value at `path`, whose objects but the last key must be there. */
function setAt(plain: EventJson, path: readonly string[], value: string, from: string): void {
  let node: unknown = plain;
  for (const key of path.slice(0, -1)) {
    node = (node as Record<string, unknown> | undefined)?.[key];
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new PreviewError(`--locale: ${from} has no object ${path.slice(0, -1).join('.')}`);
    }
  }
  (node as Record<string, unknown>)[path.at(-1)!] = value;
}

function stringAt(plain: object, path: readonly string[] | undefined): string | undefined {
  let node: unknown = plain;
  for (const key of path ?? []) node = (node as Record<string, unknown> | undefined)?.[key];
  return typeof node === 'string' && node !== '' ? node : undefined;
}

function describeType(type: unknown): string {
  if (typeof type !== 'string') return 'an event without a type';
  return /^[a-z0-9_.-]{1,100}$/i.test(type)
    ? `an event of type ${type}`
    : 'an event of an unknown type';
}
