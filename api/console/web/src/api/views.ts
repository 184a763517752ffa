import type { paths } from '../generated/console';

/**
 * Shapes of console answers the OpenAPI document leaves open (`{type: object}`: the console
 * has no compatibility promise and most of its routes name no response schema). Each mirrors
 * the server's view function named beside it; where the document does describe a response,
 * pages use the generated type instead.
 */

/** api/console/views.ts workspaceView */
export interface Workspace {
  workspace_id: string;
  name: string;
  country: string;
  timezone: string;
  suspended: boolean;
  demo: boolean;
  installed_apps: string[];
  created_at: string;
}

/** api/console/views.ts keyView */
export interface ApiKey {
  key_id: string;
  display_prefix: string;
  environment: 'live' | 'test';
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
}

/** api/console/webhookViews.ts webhookView */
export interface WebhookEndpoint {
  webhook_id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  description: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
}

/** api/console/webhookViews.ts attemptView */
export interface DeliveryAttempt {
  attempt: number;
  attempted_at: string;
  url: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
}

/** api/console/webhookViews.ts deliveryView */
export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  trigger: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  attempts?: DeliveryAttempt[];
}

export interface CaptureField {
  key: string;
  label: string;
  type: string;
  display?: string;
  options?: string[];
}

export interface TranscriptTurn {
  role: string;
  text: string;
  at?: string;
}

/** api/v1/routes/callView.ts callView, plus the console's placement, readings and transcript. */
export interface Call {
  call_id: string;
  status: string;
  direction: string;
  to: string;
  from_number: string;
  agent_id: string;
  duration_seconds: number | null;
  outcome: string | null;
  summary: string | null;
  started_at: string | null;
  ended_at: string | null;
  placed_at?: string | null;
  readings?: number;
  capture: { fields: CaptureField[] } | null;
  result: {
    state: string;
    read_at: string | null;
    disposition?: string | null;
    goal_met?: boolean | null;
    success?: boolean | null;
    summary?: string | null;
    sentiment?: string | null;
    next_step?: string | null;
    fields?: Record<string, unknown> | null;
  };
  transcript?: TranscriptTurn[];
}

/** api/v1/routes/campaigns.schema.ts campaignView */
export interface Campaign {
  campaign_id: string;
  name: string;
  channel: 'whatsapp' | 'voice';
  type: string;
  status: string;
  version: number;
  recipients: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
  /** Console only: the recipients by state (`queued`, `sent`, …); the counters above are a funnel. */
  states?: Record<string, number>;
  excluded: Record<string, number>;
  created_at: string | null;
  launched_at: string | null;
  completed_at: string | null;
  updated_at?: string | null;
  /** Console only: what the run is doing and why (declared by the route: generated). */
  explanation?: ConsoleCampaignRead['explanation'];
  /** Call campaigns: call progress (declared by the route: generated). */
  calls?: ConsoleCampaignRead['calls'];
}

type ConsoleCampaignRead = paths['/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}']['get']['responses'][200]['content']['application/json'];
export type RunExplanation = ConsoleCampaignRead['explanation'];

export interface Finding {
  code: string;
  severity: 'block' | 'warn' | 'info';
  message: string;
  fix?: string | null;
  count?: number | null;
}

/** api/v1/routes/campaigns.schema.ts evaluateResult */
export interface Evaluation {
  eligible: number;
  total_rows: number;
  excluded: Record<string, number>;
  /** Up to 200 people left out: a contact by id, an uploaded list's person by row. */
  invalid_rows: { reason: string; contact_id?: string; row?: number; field?: string }[];
  findings: Finding[];
  checksum: string;
}

/**
 * The call campaign outcome report (src/campaigns/outcomeReport.ts on the voice campaigns
 * branch: totals, the funnel, dispositions, each capture field summarised by its display).
 */
export interface OutcomeReport {
  campaign_id: string;
  totals: Record<string, number>;
  funnel: { stage: string; count: number; rate: number }[];
  dispositions: Record<string, number>;
  fields: OutcomeField[];
  generated_at: string;
}

export type FieldSummary =
  | { kind: 'counts'; counts: Record<string, number>; mean?: number | null }
  | { kind: 'distribution'; count: number; min: number | null; max: number | null; mean: number | null; median: number | null; buckets: { from: number; to: number; count: number }[] }
  | { kind: 'samples'; samples: { position: number; value: string }[] };

export interface OutcomeField {
  key: string;
  label: string;
  type: string;
  /** `bars`, `donut`, `stat`, `list` or `hidden`, with `auto` resolved. */
  display: string;
  answered: number;
  summary: FieldSummary | null;
}

/** A campaign recipient (the console's …/recipients); call campaigns add the merged outcome with its evidence. */
export interface Recipient {
  position: number;
  to: string;
  name: string | null;
  state: string;
  outcome?: { evidence: Record<string, { quote: string; turn: number; call_id: string }> } | null;
}

/** The console's …/timeline: recipients by state, a point per minute in which the run counted. */
export interface CampaignTimeline {
  bucket_seconds: number;
  recipients: number;
  items: ({ at: string } & Record<string, number | string>)[];
}

/** Dues app views (spec: Subscriber and Due). */
export interface Subscriber {
  subscriber_id: string;
  name: string;
  phone: string;
  plan_name: string;
  amount: number;
  status: string;
  next_due_date: string | null;
  outstanding_total: number;
}

export interface Due {
  due_id: string;
  subscriber_name: string;
  period_label: string;
  amount: number;
  due_date: string;
  status: string;
  reminders_sent: number;
  next_action_at: string | null;
  /** The console's view of the due's chase workflow (api/console/routes/dues.ts chaseView on the dues branch). */
  chase: {
    state: 'running' | 'ended';
    next_step: string | null;
    next_action_at: string | null;
    reminders_sent: number;
    ended_as: string | null;
    failure_reason: string | null;
  };
}
