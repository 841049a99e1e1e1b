#!/usr/bin/env node
// `npx mailer <command>` from the repository: the built CLI (npm run build), as `npm run -s cli -- <command>` runs it.
require('../dist/main.js');
