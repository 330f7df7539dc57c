#!/usr/bin/env node
// The installed command. It is a committed file rather than dist/main.js itself because pnpm
// links a workspace's bins at install time, before the build has made dist/, and warns when the
// target is missing.
import '../dist/main.js';
