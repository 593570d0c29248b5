import { writeFileSync } from 'node:fs';
import { CONFIG_SCHEMA_FILE, renderConfigJsonSchema } from '../src/app/config_schema.js';

writeFileSync(CONFIG_SCHEMA_FILE, renderConfigJsonSchema());
console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
