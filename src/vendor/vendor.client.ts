import { Pool } from 'undici';
import type { VendorConfig } from '../config/app-config';
import {
  VendorAuthError,
  VendorError,
  VendorResponseError,
  isRetriableStatus,
} from './vendor.errors';
import {
  API_KEY_HEADER,
  RELAY_TOKEN_HEADER,
  type CampaignRequest,
  type CampaignResponse,
  type ContactListRequest,
  type ContactListResponse,
} from './vendor.types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The only place that speaks HTTP to the vendor. One keep-alive pool per base URL; undici does not
 * follow redirects unless asked, so a key is never replayed to another host.
 */
export class VendorClient {
  private readonly relay: { pool: Pool; path: string };
  private readonly contacts: { pool: Pool; path: string };

  constructor(private readonly config: VendorConfig) {
    this.relay = this.endpoint(config.relayBaseUrl, '/email/campaign');
    this.contacts = this.endpoint(config.baseUrl, config.contactsPath);
  }

  async sendCampaign(request: CampaignRequest): Promise<CampaignResponse> {
    const token =
      this.config.relayTokenForm === 'token-prefix'
        ? `TOKEN ${this.config.relayAccessToken}`
        : this.config.relayAccessToken;
    const body = await this.post(this.relay, { [RELAY_TOKEN_HEADER]: token }, request);
    if (!isRecord(body) || typeof body.requestId !== 'string' || body.requestId === '') {
      throw new VendorResponseError('campaign send answered without a requestId', 200);
    }
    return {
      requestId: body.requestId,
      message: typeof body.message === 'string' ? body.message : '',
    };
  }

  async createContactList(request: ContactListRequest): Promise<ContactListResponse> {
    const body = await this.post(this.contacts, { [API_KEY_HEADER]: this.config.apiKey }, request);
    if (!isRecord(body) || typeof body.id !== 'string' || !UUID.test(body.id)) {
      throw new VendorResponseError('contact creation answered without a UUID id', 200);
    }
    return { id: body.id };
  }

  async close(): Promise<void> {
    await Promise.all([this.relay.pool.close(), this.contacts.pool.close()]);
  }

  private endpoint(baseUrl: string, suffix: string): { pool: Pool; path: string } {
    const url = new URL(baseUrl);
    const pool = new Pool(url.origin, {
      connections: 32,
      connectTimeout: this.config.connectTimeoutMs,
      headersTimeout: this.config.headersTimeoutMs,
      bodyTimeout: this.config.bodyTimeoutMs,
    });
    return { pool, path: `${url.pathname.replace(/\/+$/, '')}${suffix}` };
  }

  private async post(
    target: { pool: Pool; path: string },
    auth: Record<string, string>,
    payload: unknown,
  ): Promise<unknown> {
    let response;
    try {
      response = await target.pool.request({
        method: 'POST',
        path: target.path,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...auth },
        body: JSON.stringify(payload),
      });
    } catch (error) {
      throw new VendorError(`vendor request failed: ${(error as Error).name}`, true, undefined, {
        cause: error,
      });
    }
    const { statusCode } = response;
    const text = await response.body.text().catch(() => '');
    if (statusCode === 401 || statusCode === 403) throw new VendorAuthError(statusCode);
    if (statusCode < 200 || statusCode >= 300) {
      throw new VendorError(
        `vendor answered ${statusCode}`,
        isRetriableStatus(statusCode),
        statusCode,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new VendorResponseError(
        `vendor answered ${statusCode} with a body that is not JSON`,
        statusCode,
      );
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
