#!/usr/bin/env node
// The `envtest` command; see `envtest --help`. Runs the built package (npm run build first in a checkout).
import { main } from '../dist/cli.js';

await main();
