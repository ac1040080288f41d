import { forbidden, invalid, Queryable, ServiceData } from '@bulwark/platform';
import { VIA_CLIENTS, ViaClient } from '@bulwark/contracts';
import { AssistantSettingsRecord, assistantSettingsStore } from './store/assistant-settings';

/**
 * Whether AI assistants may change issues (the MCP server's write tools), and the line that holds it:
 * a change sent through the assistant (X-Bulwark-Via: mcp) is refused while they may not, whichever
 * route it takes, so the gateway's not offering the tools is not the only guard.
 */
export class AssistantSettings {
  constructor(private readonly data: ServiceData) {}

  get(): Promise<AssistantSettingsRecord> {
    return assistantSettingsStore.get(this.data.db);
  }

  save(writeTools: boolean): Promise<AssistantSettingsRecord> {
    return assistantSettingsStore.save(this.data.db, writeTools);
  }

  /** The client named by X-Bulwark-Via, checked: absent, or one this service records. */
  static via(header: string | undefined): ViaClient | null {
    if (header === undefined) return null;
    const client = VIA_CLIENTS.find((c) => c === header);
    if (!client)
      throw invalid('Unknown X-Bulwark-Via', [
        { field: 'headers.x-bulwark-via', problem: `must be one of ${VIA_CLIENTS.join(', ')}` },
      ]);
    return client;
  }

  /** Refuses a change made through an assistant while write tools are disabled (read in the change's transaction). */
  async assertMayWrite(db: Queryable, via: ViaClient | null): Promise<void> {
    if (via !== 'mcp') return;
    if (!(await assistantSettingsStore.get(db)).writeTools)
      throw forbidden('Write tools of AI assistants are disabled (PUT /api/v1/mcp/settings)');
  }
}
