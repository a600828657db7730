import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { loadConfig } from './config.loader';

/**
 * Provides the one `AppConfig`. `forRoot()` reads the process environment (the only place in
 * the service that does); tests pass a config they built with `loadConfig`.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()) {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
