import { Controller, Get, Header } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { asyncApiDocument } from './asyncapi.document';

/** The path the AsyncAPI document is served at (docs/events.md and the document name it). */
export const ASYNCAPI_PATH = 'asyncapi.json';

/**
 * `GET /asyncapi.json`: the AsyncAPI document with the topic names this deployment is configured
 * with; otherwise the committed `asyncapi/asyncapi.json`. Built once, at start-up.
 */
@Controller()
export class AsyncApiController {
  private readonly document: string;

  constructor(config: AppConfig) {
    this.document = JSON.stringify(asyncApiDocument(config.topics));
  }

  @Get(ASYNCAPI_PATH)
  @Header('content-type', 'application/json; charset=utf-8')
  get(): string {
    return this.document;
  }
}
