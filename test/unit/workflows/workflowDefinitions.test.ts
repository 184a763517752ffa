import type { Workflow } from '@temporalio/workflow';
import * as workflows from '../../../workflows';
import { callBackDefinition, callLifecycleV1Definition, callWorkflowBeforeIssue36Definition, callWorkflowDefinition, rereadCallDefinition, simulatedCalleeDefinition } from '../../../src/calls/contracts';
import { conversationAgentDefinition } from '../../../src/agents/contracts';
import { campaignRunDefinition, voiceCampaignRunDefinition } from '../../../src/campaigns/contracts';
import { dueChaseDefinition, duesCycleDefinition, simulatedLinkPaymentDefinition } from '../../../src/dues/contracts';
import { simulatedWhatsAppDeliveryDefinition } from '../../../src/messaging/contracts';
import { systemCheckDefinition } from '../../../src/temporal/contracts';
import type { WorkflowDefinition } from '../../../src/temporal/workflowDefinition';
import { deliverWebhookDefinition, dispatchEventDefinition, endpointDeliveriesDefinition } from '../../../src/webhooks/contracts';

/**
 * Each contract's workflow definition against the function the worker hosts: the type
 * checker (`npm test` runs tsc first) proves the function has the definition's signature,
 * and this test that the names match, so a start by definition reaches that function.
 */
function hosted<W extends Workflow>(definition: WorkflowDefinition<W>, implementation: NoInfer<W>) {
  return { definition, implementation: implementation as Workflow };
}

const HOSTED = [
  hosted(callWorkflowDefinition, workflows.callLifecycleV2),
  hosted(callLifecycleV1Definition, workflows.callLifecycle),
  hosted(callWorkflowBeforeIssue36Definition, workflows.callWorkflow),
  hosted(callBackDefinition, workflows.callBack),
  hosted(rereadCallDefinition, workflows.rereadCall),
  hosted(simulatedCalleeDefinition, workflows.simulatedCallee),
  hosted(endpointDeliveriesDefinition, workflows.endpointDeliveries),
  hosted(dispatchEventDefinition, workflows.dispatchEvent),
  hosted(deliverWebhookDefinition, workflows.deliverWebhook),
  hosted(simulatedWhatsAppDeliveryDefinition, workflows.simulatedWhatsAppDelivery),
  hosted(systemCheckDefinition, workflows.systemCheck),
  hosted(campaignRunDefinition, workflows.campaignRun),
  hosted(voiceCampaignRunDefinition, workflows.voiceCampaignRun),
  hosted(dueChaseDefinition, workflows.dueChase),
  hosted(duesCycleDefinition, workflows.duesCycle),
  hosted(simulatedLinkPaymentDefinition, workflows.simulatedLinkPayment),
  hosted(conversationAgentDefinition, workflows.conversationAgentWorkflow),
];

describe('workflow definitions', () => {
  it.each(HOSTED.map((h) => [h.definition.name, h] as const))('%s names the function workflows/index.ts exports under that name', (name, { implementation }) => {
    expect(implementation.name).toBe(name);
    expect((workflows as Record<string, unknown>)[name]).toBe(implementation);
  });

  it('every hosted workflow has a definition', () => {
    expect(Object.keys(workflows).sort()).toEqual(HOSTED.map((h) => h.definition.name).sort());
  });
});
