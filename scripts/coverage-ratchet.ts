import { runRatchet } from './coverage/ratchet.js';

process.exitCode = runRatchet(process.argv[2], process.cwd(), { info: console.log, error: console.error });
