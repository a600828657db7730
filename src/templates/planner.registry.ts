import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { EmailTemplate, type Template } from './template';

/** Finds every `@EmailTemplate()` provider at startup and answers which handle an event type. */
@Injectable()
export class TemplateRegistry implements OnModuleInit {
  private readonly byEventType = new Map<string, Template[]>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const names = new Set<string>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: EmailTemplate.KEY })) {
      const template = wrapper.instance as Template;
      if (names.has(template.name)) throw new Error(`two templates are named '${template.name}'`);
      names.add(template.name);
      const list = this.byEventType.get(template.eventType) ?? [];
      list.push(template);
      this.byEventType.set(template.eventType, list);
    }
    for (const list of this.byEventType.values()) list.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The templates for an event type, in a stable order (by name, sorted once at startup). */
  forEventType(type: string): readonly Template[] {
    return this.byEventType.get(type) ?? [];
  }
}
