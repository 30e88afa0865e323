// The worker's workflowsPath: every workflow Herald runs.
export { bareWorkflow } from './bare.js';
export { deliveryWorkflow } from './delivery.js';
