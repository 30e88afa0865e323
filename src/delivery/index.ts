// Delivery's lifecycle behind one door (./service.ts): the API's routes and the worker's activities use the service.
export { createDeliveryService, type DeliveryService, type DeliveryServiceDeps } from './service.js';
export type { FanOut } from './fan-out.js';
export type { IngestVerdict } from './ingest.js';
export type { CampaignControl, CampaignRequest } from './recovery-campaign.js';
export { WorkflowUnansweredError } from './workflow-answer.js';
export type { PauseVerdict } from './subscription-pause.js';
export type { ErasureJob, SubjectErasureJob } from './erasure.js';
