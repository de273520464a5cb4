// Validate wire messages against the generated documents with Ajv in its default strict mode.
//
//   node validate.mjs INPUT.json
//
// INPUT: {"documents": {"protocol": <JSON Schema>, "openapi": <OpenAPI>, "asyncapi": <AsyncAPI>},
//         "samples": [{"document": "protocol"|"openapi"|"asyncapi", "schema": NAME, "data": ...}]}
// NAME is a $defs name (protocol) or a components.schemas name (openapi, asyncapi).
// Prints {"compiled": [...], "checked": N, "failures": [...]} and exits 1 on any failure.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv2020(); // default options: strict mode on
addFormats(ajv);

const bases = {};
for (const [name, doc] of Object.entries(input.documents)) {
  if (name === "protocol") {
    ajv.addSchema(doc, "protocol");
    bases[name] = "protocol#/$defs/";
  } else {
    // OpenAPI 3.1 and AsyncAPI 3.0 schemas are JSON Schema: compile the components alone.
    const text = JSON.stringify(doc.components.schemas).replaceAll("#/components/schemas/", "#/$defs/");
    ajv.addSchema({ $defs: JSON.parse(text) }, name);
    bases[name] = `${name}#/$defs/`;
  }
}

const compiled = [];
const validators = new Map();
function validator(document, schema) {
  const key = bases[document] + schema;
  if (!validators.has(key)) {
    validators.set(key, ajv.compile({ $ref: key }));
  }
  return validators.get(key);
}

// Every component compiles, strictly.
for (const [name, doc] of Object.entries(input.documents)) {
  const names = name === "protocol" ? Object.keys(doc.$defs) : Object.keys(doc.components.schemas);
  for (const schema of names) {
    validator(name, schema);
    compiled.push(`${name}:${schema}`);
  }
}
if (input.documents.protocol) {
  ajv.getSchema("protocol"); // the document itself, root anyOf included
}

const failures = [];
let checked = 0;
for (const sample of input.samples || []) {
  const validate = validator(sample.document, sample.schema);
  checked += 1;
  if (!validate(sample.data)) {
    failures.push({ document: sample.document, schema: sample.schema, errors: validate.errors, data: sample.data });
    if (failures.length >= 5) break;
  }
}
console.log(JSON.stringify({ compiled, checked, failures }));
process.exit(failures.length ? 1 : 0);
