#!/usr/bin/env node
// Checks the API reference TypeDoc generated (.tmp/api-html/api.json, from `npm run docs`): every
// property of every exported `*Options` (or `*Option`) interface (the options users pass) must say what it
// does, carry a `@default` and an `@example`. TypeDoc itself (validation.notDocumented, warnings
// as errors) already fails on anything public without a comment.
//
// Usage: npm run docs (runs typedoc, then this script)

import { readFileSync } from 'node:fs';

const api = JSON.parse(readFileSync(new URL('../.tmp/api-html/api.json', import.meta.url), 'utf8'));
const KIND_INTERFACE = 256;
const KIND_PROPERTY = 1024;

const problems = [];
let checked = 0;

/** Visits every reflection; option interfaces are the exported `…Options` and `…Option` ones. */
function walk(node) {
  if (node.kind === KIND_INTERFACE && /Options?$/.test(node.name)) checkOptions(node, node.name);
  for (const child of node.children ?? []) walk(child);
}

function tags(comment) {
  return new Set((comment?.blockTags ?? []).map((tag) => tag.tag));
}

function text(comment) {
  return (comment?.summary ?? [])
    .map((part) => part.text)
    .join('')
    .trim();
}

function checkOptions(node, name) {
  for (const property of node.children ?? []) {
    if (property.kind !== KIND_PROPERTY) continue;
    // Inherited properties are checked where they are declared.
    if (property.inheritedFrom) continue;
    checked++;
    const where = `${name}.${property.name}`;
    const comment = property.comment;
    const found = tags(comment);
    if (text(comment) === '') problems.push(`${where}: no description`);
    if (!found.has('@default')) problems.push(`${where}: no @default`);
    if (!found.has('@example')) problems.push(`${where}: no @example`);
  }
}

walk(api);
if (problems.length > 0) {
  console.error(`check-docs: ${problems.length} problem(s) in ${checked} option(s):`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exitCode = 1;
} else {
  console.log(`check-docs: ${checked} options, each with a description, @default and @example`);
}
