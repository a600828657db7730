import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { Planner } from './planner';
import { TEMPLATE_FOLDERS, type TemplateFolder } from './template-folders.module';

/**
 * Finds every `@Planner()` provider at startup and answers which plan an event type. Start-up
 * fails on two planners with one name (the name is part of idempotency keys and result ids)
 * and on a template folder whose module provides no planner.
 */
@Injectable()
export class PlannerRegistry implements OnModuleInit {
  private readonly all: Planner[] = [];
  private readonly byEventType = new Map<string, Planner[]>();

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(TEMPLATE_FOLDERS) private readonly folders: readonly TemplateFolder[],
  ) {}

  onModuleInit(): void {
    // Nest lists providers in an order of its own making; sort by folder (the scan's order),
    // then by name, so that the order found is the same on every machine and Nest version.
    const rank = new Map<unknown, number>(this.folders.map((f, i) => [f.module, i]));
    const rankOf = (w: InstanceWrapper) => rank.get(w.host?.metatype) ?? this.folders.length;
    const found = this.discovery
      .getProviders({ metadataKey: Planner.KEY })
      .sort((a, b) => rankOf(a) - rankOf(b) || nameOf(a).localeCompare(nameOf(b)));
    const folderOf = new Map<unknown, string>(this.folders.map((f) => [f.module, f.path]));
    const where = new Map<string, string>();
    for (const wrapper of found) {
      const planner = wrapper.instance as Planner | undefined;
      const origin = `${folderOf.get(wrapper.host?.metatype) ?? wrapper.host?.name ?? '?'} (${wrapper.name})`;
      if (!planner) throw new Error(`planner ${origin} must be a singleton provider`);
      const earlier = where.get(planner.name);
      if (earlier) {
        throw new Error(`two planners are named '${planner.name}': ${earlier} and ${origin}`);
      }
      where.set(planner.name, origin);
      this.all.push(planner);
      const list = this.byEventType.get(planner.eventType) ?? [];
      list.push(planner);
      this.byEventType.set(planner.eventType, list);
    }
    const hosts = new Set(found.map((wrapper) => wrapper.host?.metatype));
    for (const folder of this.folders) {
      if (!hosts.has(folder.module)) {
        throw new Error(
          `template folder ${folder.path}/: ${folder.module.name} provides no @Planner() provider`,
        );
      }
    }
    for (const list of this.byEventType.values()) list.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every planner, in the order found: by folder, then by name within a folder. */
  planners(): readonly Planner[] {
    return this.all;
  }

  /** The planners for an event type, in a stable order (by name, sorted once at startup). */
  forEventType(type: string): readonly Planner[] {
    return this.byEventType.get(type) ?? [];
  }
}

function nameOf(wrapper: InstanceWrapper): string {
  return (wrapper.instance as Partial<Planner> | undefined)?.name ?? '';
}
