#!/usr/bin/env node
// The package's `adsvc` command: runs the compiled CLI (npm run build first when working from source).
import('../dist/src/main.js');
