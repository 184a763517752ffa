/** The worker's workflows path: every workflow the worker hosts is exported here. */
export { systemCheck } from './systemCheck';
export { callWorkflow } from './call';
export { callBack } from './callBack';
export { rereadCall } from './rereadCall';
export { simulatedCallee } from './simulatedCallee';
export { endpointDeliveries } from './endpointDeliveries';
// No longer started (issue 13): hosted so runs started by an earlier release finish.
export { dispatchEvent } from './dispatchEvent';
export { deliverWebhook } from './deliverWebhook';
export { simulatedWhatsAppDelivery } from './simulatedWhatsAppDelivery';
export { campaignRun } from './campaignRun';
export { voiceCampaignRun } from './voiceCampaignRun';
export { dueChase } from './dueChase';
export { duesCycle } from './duesCycle';
export { simulatedLinkPayment } from './simulatedLinkPayment';
export { conversationAgentWorkflow } from './conversationAgent';
