'use strict';
/** Writes schema/*.json from the config schemas (npm run schemas; needs a build). */
const path = require('node:path');
const { writeConfigSchemas } = require('../dist/src/cli/config-schemas.js');

for (const f of writeConfigSchemas(path.resolve(__dirname, '..', 'schema'))) process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
