/**
 * What the create forms read from lists the console document still leaves open (`items:
 * unknown`): each mirrors the server view named beside it, only the fields a form uses.
 */

/** api/console/views.ts agentView */
export interface AgentOption {
  agent_id: string;
  name: string;
}

/** api/console/views.ts senderView */
export interface SenderOption {
  sender_id: string;
  phone: string;
  display_name: string;
  is_default: boolean;
  connected: boolean;
}

/** api/console/views.ts templateView */
export interface TemplateOption {
  template_id: string;
  name: string;
  language: string;
  status: 'approved' | 'pending' | 'rejected';
  body: string;
}

/** api/console/routes/tickets.ts consoleTicketView (the fields the list shows) */
export interface TicketRow {
  ticket_id: string;
  public_ref: string;
  subject: string;
  status: string;
  priority: string;
  assignee_name: string | null;
  created_at: string | null;
}
