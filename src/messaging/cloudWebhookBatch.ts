import type { Referral } from './inbound';

/**
 * A Cloud API webhook delivery as messaging ingests it (src/messaging/cloudIngest.ts): what
 * the adapter reads out of the payload (src/providers/whatsapp/cloudWebhook.ts).
 */

export interface Business {
  phoneNumberId: string | null;
  /** Digits, as the Cloud API reports it. */
  displayPhoneNumber: string | null;
}

export interface CloudInbound extends Business {
  id: string;
  from: string;
  profileName: string | null;
  at: Date;
  type: string;
  text: string | null;
  referral: Referral | null;
}

export interface CloudStatus extends Business {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipient: string | null;
  at: Date;
  error: { code: number | null; title: string | null; message: string | null } | null;
  /** `biz_opaque_callback_data` as the send gave it: the send's intent key (src/messaging/unknownOutcomes.ts). */
  callbackData: string | null;
}

export interface CloudEcho extends Business {
  id: string;
  to: string;
  action: 'sent' | 'edited' | 'deleted';
  type: string;
  text: string | null;
  at: Date;
}

export interface CloudWebhookBatch {
  inbound: CloudInbound[];
  statuses: CloudStatus[];
  echoes: CloudEcho[];
}
