import type { operations } from '../generated/console';

/**
 * The console's records by name, read from the generated types (src/generated/console.ts,
 * `npm run api:types`): the routes' response schemas are the one source, so a page's type is
 * what the server answers.
 */
type Answer<Op extends keyof operations> = operations[Op]['responses'] extends infer R
  ? { [S in keyof R]: R[S] extends { content: { 'application/json': infer T } } ? T : never }[keyof R & (200 | 201 | 202)]
  : never;
/** A row of a list answer (its `items`), by the list's operation id. */
export type Item<Op extends keyof operations> = Answer<Op> extends { items: (infer T)[] } ? T : never;

export type Workspace = Answer<'getWorkspace'>;
export type ApiKey = Item<'listKeys'>;
export type WebhookEndpoint = Answer<'getWebhook'>;
export type Delivery = Item<'listWebhookDeliveries'>;
/** What a change of an endpoint sends; its `event_types` are the subscribable types. */
export type WebhookChange = NonNullable<operations['updateWebhook']['requestBody']>['content']['application/json'];
export type EventType = NonNullable<WebhookChange['event_types']>[number];
export type Call = Answer<'getConsoleCall'>;
/** A call as a number's search lists it (the public call, without the console's transcript). */
export type FoundCall = Item<'findConsoleCalls'>;
export type Campaign = Answer<'getConsoleCampaign'>;
export type RunExplanation = Campaign['explanation'];
export type Evaluation = Answer<'evaluateConsoleCampaign'>;
export type OutcomeReport = Answer<'getConsoleCampaignOutcomes'>;
export type OutcomeField = OutcomeReport['fields'][number];
export type Recipient = Item<'listConsoleCampaignRecipients'>;
export type CampaignTimeline = Answer<'getConsoleCampaignTimeline'>;
export type Subscriber = Item<'listDuesSubscribersConsole'>;
export type Due = Item<'listDuesConsole'>;
export type CampaignPreview = Answer<'getConsoleCampaignPreview'>;
export type SubscriberAccount = Answer<'getDuesSubscriberConsole'>;
export type AccountDue = SubscriberAccount['dues'][number];
export type CampaignRequest = Answer<'getConsoleCampaignRequest'>;
