#!/usr/bin/env node
// The installed command. It is a committed file rather than the bundle itself because pnpm
// links a workspace's bins at install time, before the build has made bundle/, and warns when
// the target is missing.
// Run before main.js is even read: compiling its modules would already grow the young generation.
import '../bundle/young-generation.js';

await import('../bundle/main.js');
