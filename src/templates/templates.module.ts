import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PlannerRegistry } from './planner.registry';
import { TemplateFoldersModule } from './template-folders.module';

/**
 * Every template: each sub-folder of this one is found and imported at start-up (see
 * `TemplateFoldersModule`), so a new template is a new folder and no line here changes.
 */
@Module({
  imports: [DiscoveryModule, TemplateFoldersModule.scan(__dirname)],
  providers: [PlannerRegistry],
  exports: [PlannerRegistry],
})
export class TemplatesModule {}
