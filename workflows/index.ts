/** The worker's workflows path: every workflow the worker hosts is exported here. */
export { systemCheck } from './system/systemCheck';
export { callLifecycleV2 } from './calls/callLifecycleV2';
// No longer started (issue 36 §3, callLifecycleV2): hosted so calls started by an earlier release finish.
export { callLifecycle } from './calls/callLifecycle';
// No longer started (issue 36): hosted so calls started by an earlier release finish.
export { callWorkflow } from './calls/call';
export { callBack } from './calls/callBack';
export { rereadCall } from './calls/rereadCall';
export { simulatedCallee } from './calls/simulatedCallee';
export { endpointDeliveries } from './webhooks/endpointDeliveries';
// No longer started (issue 13): hosted so runs started by an earlier release finish.
export { dispatchEvent } from './webhooks/dispatchEvent';
export { deliverWebhook } from './webhooks/deliverWebhook';
export { simulatedWhatsAppDelivery } from './messaging/simulatedWhatsAppDelivery';
export { campaignRun } from './campaigns/campaignRun';
export { voiceCampaignRun } from './campaigns/voiceCampaignRun';
export { dueChase } from './dues/dueChase';
export { duesCycle } from './dues/duesCycle';
export { simulatedLinkPayment } from './dues/simulatedLinkPayment';
export { conversationAgentWorkflow } from './agents/conversationAgent';
