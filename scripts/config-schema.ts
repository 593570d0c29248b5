import { writeFileSync } from 'node:fs';
import { renderConfigJsonSchema } from '../src/app/config_schema.js';
import { CONFIG_SCHEMA_FILE } from '../src/config/json_schema.js';

writeFileSync(CONFIG_SCHEMA_FILE, renderConfigJsonSchema());
console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
