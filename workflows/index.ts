// The worker's workflowsPath: every workflow Herald runs.
export { deliveryWorkflow } from './delivery.js';
export { releaseWorkflow } from './release.js';
export { recoveryWorkflow } from './recovery.js';
export { probeWorkflow } from './probe.js';
export { retentionWorkflow } from './retention.js';
export { erasureWorkflow } from './erasure.js';
export { subjectErasureWorkflow } from './subject-erasure.js';
