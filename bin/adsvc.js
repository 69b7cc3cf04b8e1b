#!/usr/bin/env node
// The package's `adsvc` command: runs the built CLI, bundled into one file (npm run build first when working from source).
import('../dist/adsvc.js');
