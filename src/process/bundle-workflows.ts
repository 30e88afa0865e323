// `npm run bundle:workflows` (the image runs it after `npm run build`): the compiled workflows bundled once into
// dist/workflow-bundle.js, which the worker then loads instead of bundling at every start
// (src/temporal/workflow-bundle.ts).
import { prebuiltBundleFile, writeWorkflowBundle } from '../temporal/workflow-bundle.js';

const file = process.argv[2] ?? prebuiltBundleFile();
await writeWorkflowBundle(file);
console.log(`workflows bundled into ${file}`);
