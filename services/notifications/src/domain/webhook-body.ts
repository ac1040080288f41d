/** An event as a webhook sends it; the client adds the body layout's version (see the OpenAPI webhooks). */
export interface WebhookBody {
  id: string;
  type: string;
  occurred_at: string;
  project_code: string | null;
  message: string;
  message_ru: string;
  data: Record<string, unknown>;
}
