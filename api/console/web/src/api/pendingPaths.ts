import type { Campaign, CampaignTimeline, Due, Evaluation, OutcomeReport, Recipient, Subscriber } from './views';

/**
 * The campaign and dues console routes in openapi-typescript's shape, typed by hand because
 * the console document gives their responses no schema (the generated types read them as
 * `unknown`). Same paths as the document; once their routes declare response schemas, delete
 * this file and use `api`.
 */

type Json<T> = { headers: Record<string, unknown>; content: { 'application/json': T } };
type Failure = Json<{ error: { code: string; message: string; details: Record<string, unknown> } }>;
type WorkspacePath = { workspace_id: string };
type CampaignPath = WorkspacePath & { campaign_id: string };

type Control<Body> = {
  parameters: { path: CampaignPath; query?: never; header?: never; cookie?: never };
  requestBody: { content: { 'application/json': Body } };
  responses: { 200: Json<Campaign>; 404: Failure; 409: Failure; 412: Failure };
};

type Read<P, T, Q = never> = {
  parameters: { path: P; query?: Q; header?: never; cookie?: never };
  requestBody?: never;
  responses: { 200: Json<T>; 404: Failure; 412: Failure };
};

type Nothing = { parameters: { query?: never; header?: never; path?: never; cookie?: never }; get?: never; put?: never; post?: never; delete?: never; options?: never; head?: never; patch?: never; trace?: never };

export interface PendingPaths {
  '/console/v1/workspaces/{workspace_id}/campaigns': Omit<Nothing, 'get'> & { get: Read<WorkspacePath, { items: Campaign[]; next_cursor?: string | null }, { status?: string }> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}': Omit<Nothing, 'get'> & { get: Read<CampaignPath, Campaign> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/evaluate': Omit<Nothing, 'post'> & {
    post: { parameters: { path: CampaignPath }; requestBody?: never; responses: { 200: Json<Evaluation>; 404: Failure } };
  };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/launch': Omit<Nothing, 'post'> & { post: Control<{ expected_version: number; confirm_recipients?: number | null }> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/pause': Omit<Nothing, 'post'> & { post: Control<{ expected_version: number }> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/resume': Omit<Nothing, 'post'> & { post: Control<{ expected_version: number }> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/cancel': Omit<Nothing, 'post'> & { post: Control<{ expected_version: number }> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/archive': Omit<Nothing, 'post'> & {
    post: { parameters: { path: CampaignPath }; requestBody?: never; responses: { 200: Json<Campaign>; 404: Failure; 409: Failure; 412: Failure } };
  };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/timeline': Omit<Nothing, 'get'> & { get: Read<CampaignPath, CampaignTimeline> };
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/recipients': Omit<Nothing, 'get'> & {
    get: Read<CampaignPath, { items: Recipient[]; next_cursor: string | null }, { limit?: number; cursor?: string }>;
  };
  /** The console's copy of the public outcome report (session callers hold no API key). */
  '/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/outcomes': Omit<Nothing, 'get'> & { get: Read<CampaignPath, OutcomeReport> };
  '/console/v1/workspaces/{workspace_id}/apps/dues/subscribers': Omit<Nothing, 'get'> & { get: Read<WorkspacePath, { items: Subscriber[]; next_cursor?: string | null }> };
  '/console/v1/workspaces/{workspace_id}/apps/dues/dues': Omit<Nothing, 'get'> & { get: Read<WorkspacePath, { items: Due[]; next_cursor?: string | null }> };
}
