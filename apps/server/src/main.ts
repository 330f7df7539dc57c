#!/usr/bin/env node
import { main } from './cli.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Should a stray handle outlive shutdown, do not hang: the timer itself keeps nothing alive.
setTimeout(() => process.exit(code), 2000).unref();
