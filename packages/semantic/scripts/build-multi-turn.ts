// Regenerates data/casa-multi-turn.json from the vendored single-turn CASA set.
// Run from the repository root: node packages/semantic/scripts/build-multi-turn.ts
import { writeFileSync } from 'node:fs';
import { multiTurnFileText } from '../src/eval/build-multi-turn-file.ts';
import { MULTI_TURN_FILE } from '../src/eval/datasets.ts';

writeFileSync(MULTI_TURN_FILE, multiTurnFileText());
console.log(`wrote ${MULTI_TURN_FILE.pathname}`);
