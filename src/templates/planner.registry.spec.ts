import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ConfigModule } from '../config/config.module';
import { loadConfig } from '../config/config.loader';
import { Planner, type ContactListAction } from './planner';
import { PlannerRegistry } from './planner.registry';
import { TEMPLATE_FOLDERS, type TemplateFolder } from './template-folders.module';
import { TemplatesModule } from './templates.module';

const config = loadConfig({ MAILBRIDGE_MODE: 'local', SENDER_FROM_EMAIL: 'hello@shop.example' });

function listPlanner(name: string) {
  @Injectable()
  @Planner()
  class ListPlanner implements Planner {
    readonly name = name;
    readonly eventType = 'user.signed_up.v1';
    readonly category = 'marketing' as const;
    plan(): ContactListAction {
      return { kind: 'contact-list', mode: 'exact', name, members: [] };
    }
  }
  return ListPlanner;
}

/** A module for a hand-made template folder that provides `providers`. */
function folderModule(providers: ReturnType<typeof listPlanner>[]) {
  @Module({ providers })
  class HandMadeModule {}
  return HandMadeModule;
}

/** A registry over hand-made folders, as the scan would hand them over (in this order). */
async function registryOver(...providersPerFolder: ReturnType<typeof listPlanner>[][]) {
  const folders: TemplateFolder[] = providersPerFolder.map((providers, i) => ({
    path: `templates/hand-made-${i}`,
    module: folderModule(providers),
  }));
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, ...folders.map((f) => f.module)],
    providers: [PlannerRegistry, { provide: TEMPLATE_FOLDERS, useValue: folders }],
  }).compile();
  return moduleRef.init().then(() => moduleRef.get(PlannerRegistry));
}

describe(PlannerRegistry.name, () => {
  it('finds every shipped template folder, in folder-name order', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), TemplatesModule],
    }).compile();
    await moduleRef.init();
    const registry = moduleRef.get(PlannerRegistry);
    expect(registry.planners().map((p) => p.name)).toEqual([
      'campaign-command', // commands/
      'contact-list-command', // commands/
      'new-customers',
      'order-confirmation',
      'welcome',
    ]);
    expect(registry.forEventType('order.placed.v1').map((p) => p.name)).toEqual([
      'new-customers',
      'order-confirmation',
    ]);
    expect(registry.forEventType('no.such.type.v1')).toEqual([]);
    await moduleRef.close();
  });

  it('finds planners by folder, then by name; answers an event type sorted by name', async () => {
    const registry = await registryOver(
      [listPlanner('zebra'), listPlanner('yak')],
      [listPlanner('aardvark')],
    );
    expect(registry.planners().map((p) => p.name)).toEqual(['yak', 'zebra', 'aardvark']);
    expect(registry.forEventType('user.signed_up.v1').map((p) => p.name)).toEqual([
      'aardvark',
      'yak',
      'zebra',
    ]);
  });

  it('refuses two planners with one name, naming where each is', async () => {
    await expect(registryOver([listPlanner('twin')], [listPlanner('twin')])).rejects.toThrow(
      "two planners are named 'twin': templates/hand-made-0 (ListPlanner) and templates/hand-made-1 (ListPlanner)",
    );
  });

  it('refuses a template folder whose module provides no planner', async () => {
    await expect(registryOver([listPlanner('welcome')], [])).rejects.toThrow(
      'template folder templates/hand-made-1/: HandMadeModule provides no @Planner() provider',
    );
  });
});
