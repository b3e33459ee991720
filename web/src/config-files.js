// Trainer config files as the engine's import takes them (docs/import.md "Parsing at the edge"):
// YAML and TOML parsed here into JSON values ({name, content}); JSON files, command lines and launch
// scripts passed as text ({name, text}) for the engine to read. The same rules as the CLI's parser
// (cli/config_files.cpp), so that the page and `trainmem parse` give identical JSON for every file
// (tests-js/import.test.mjs). Pure: no DOM.
//
// YAML: the frameworks read it with PyYAML's `yaml.safe_load`, whose YAML 1.1 scalar rules are
// applied here (PyYAML 6.0 yaml/resolver.py): the `yaml` package reads the structure with every
// scalar left as text (its failsafe schema), and each plain scalar is then resolved as PyYAML would.
import { parseDocument, isAlias, isMap, isScalar, isSeq, Scalar, stringify } from 'yaml';
import { parse as parseToml, TomlError } from 'smol-toml';

/** @typedef {{name: string, content: unknown} | {name: string, text: string}} ImportFile  one entry of the import request's `files` */
/**
 * As the engine's errors: field is the file's name; params the file and where the parser stopped
 * (the page words the problem in its language from them, as the CLI's own, cli/config_files.cpp).
 * @typedef {{code: string, field: string, message: string, params: Record<string, string | number>}} FileProblem
 */

// The CLI's bounds (cli/config_files.cpp): nesting depth, values built, and text bytes, so that
// aliases repeating a subtree ("billion laughs") cannot blow up.
const MAX_DEPTH = 64;
const MAX_VALUES = 1000000;
const MAX_TEXT_BYTES = 64 << 20;

// PyYAML 6.0 yaml/resolver.py implicit resolvers, in the order they are tried.
const YAML11_NULL = /^(?:~|null|Null|NULL|)$/;
const YAML11_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const YAML11_INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const YAML11_FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const STR_TAG = 'tag:yaml.org,2002:str';

/** @param {string} digits  "1:30:05" -> 5405 (PyYAML construct_yaml_int / construct_yaml_float) */
function base60(digits) {
  return digits.split(':').reduce((value, part) => value * 60 + Number(part), 0);
}

/**
 * @param {string} digits
 * @param {number} radix
 */
function positional(digits, radix) {
  let value = 0;
  for (const c of digits) value = value * radix + parseInt(c, radix);
  return value;
}

/** @param {string} text  a plain scalar matching YAML11_INT */
function yamlInt(text) {
  let v = text.replace(/_/g, '');
  let sign = 1;
  if (v[0] === '-' || v[0] === '+') {
    sign = v[0] === '-' ? -1 : 1;
    v = v.slice(1);
  }
  let value;
  if (v === '0') value = 0;
  else if (v.startsWith('0b')) value = positional(v.slice(2), 2);
  else if (v.startsWith('0x')) value = positional(v.slice(2), 16);
  else if (v[0] === '0') value = positional(v.slice(1), 8);
  else if (v.includes(':')) value = base60(v);
  else value = positional(v, 10);
  return sign * value || 0;  // -0 is 0
}

/** @param {string} text  a plain scalar matching YAML11_FLOAT */
function yamlFloat(text) {
  let v = text.replace(/_/g, '').toLowerCase();
  // .inf and .nan have no JSON form: kept as written (as the CLI does).
  if (v.includes('inf') || v.includes('nan')) return text;
  let sign = 1;
  if (v[0] === '-' || v[0] === '+') {
    sign = v[0] === '-' ? -1 : 1;
    v = v.slice(1);
  }
  if (v.includes(':')) {
    const dot = v.indexOf('.');
    return sign * (base60(v.slice(0, dot)) + Number('0' + v.slice(dot)));
  }
  return sign * Number(v);
}

/**
 * A plain (unquoted, untagged) YAML scalar as PyYAML's safe_load reads it: null, a boolean, an
 * integer, a float, or the text itself (timestamps too, as a JSON writer would render them).
 * @param {string} s
 * @returns {null | boolean | number | string}
 */
export function yaml11PlainScalar(s) {
  if (YAML11_NULL.test(s)) return null;
  if (YAML11_BOOL.test(s)) {
    const c = s[0];
    return c === 'y' || c === 'Y' || c === 't' || c === 'T' || s === 'on' || s === 'On' || s === 'ON';
  }
  if (s.length <= 64 && YAML11_INT.test(s)) return yamlInt(s);
  if (s.length <= 64 && YAML11_FLOAT.test(s)) return yamlFloat(s);
  return s;
}

class YamlProblem extends Error {
  /**
   * @param {string} message
   * @param {[number, number] | undefined} range  character offsets of the node
   * @param {string} [code]
   * @param {string} [key]  the repeated key, for duplicate_key
   * @param {boolean} [parserError]  a problem yaml-cpp finds while parsing, which the CLI places at its
   *   line's first character that is not a blank (as the parse errors above)
   */
  constructor(message, range, code = 'invalid_yaml', key = '', parserError = false) {
    super(message);
    this.offset = range ? range[0] : 0;
    this.code = code;
    this.key = key;
    this.parserError = parserError;
  }
}

/**
 * 1-based line and column of a character offset.
 * @param {string} text
 * @param {number} offset
 */
function lineColumn(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/**
 * The 1-based column of the first character of 1-based `line` that is neither a space nor a tab
 * (1 for a line of blanks or one past the end of the text), as cli/config_files.cpp computes it.
 * @param {string} text
 * @param {number} line
 */
function firstNonBlankColumn(text, line) {
  const s = text.split('\n')[line - 1];
  if (s === undefined) return 1;
  const m = /^[ \t]*/.exec(s);
  const i = m ? m[0].length : 0;
  return i < s.length && s[i] !== '\r' ? i + 1 : 1;
}

/**
 * Builds the JSON value of a YAML document's node tree, with PyYAML's scalar rules and merge keys,
 * bounded as the CLI bounds it.
 */
class YamlBuilder {
  /** @param {import('yaml').Document} doc */
  constructor(doc) {
    this.doc = doc;
    this.values = 0;
    this.textBytes = 0;
    this.encoder = new TextEncoder();
    /** @type {Map<unknown, unknown>} each alias's node, found once: the library searches the whole document per call */
    this.aliased = new Map();
  }

  /**
   * The node an alias names; an alias of no anchor is an error, as PyYAML's safe_load ("found
   * undefined alias") and the CLI's yaml-cpp say, never read as null.
   * @param {any} alias
   */
  resolve(alias) {
    if (!this.aliased.has(alias)) this.aliased.set(alias, alias.resolve(this.doc));
    const node = this.aliased.get(alias);
    if (node === undefined) throw new YamlProblem('the referenced anchor is not defined', alias.range, 'invalid_yaml', '', true);
    return node;
  }

  /** @param {string} s */
  countText(s, /** @type {any} */ node) {
    this.textBytes += this.encoder.encode(s).length;
    if (this.textBytes > MAX_TEXT_BYTES) throw new YamlProblem(`expands to more than ${MAX_TEXT_BYTES} bytes of text (aliases)`, node && node.range);
  }

  /**
   * @param {unknown} node
   * @param {number} depth
   * @returns {unknown}
   */
  build(node, depth) {
    const n = /** @type {any} */ (node);
    if (depth > MAX_DEPTH) throw new YamlProblem(`nests deeper than ${MAX_DEPTH} levels`, n && n.range);
    if (++this.values > MAX_VALUES) throw new YamlProblem(`expands to more than ${MAX_VALUES} values (aliases)`, n && n.range);
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.build(this.resolve(node), depth);
    if (isScalar(node)) {
      const text = node.value === null || node.value === undefined ? '' : String(node.value);
      this.countText(text, node);
      // Quoted and block scalars and !!str (or the non-specific "!") are text; a plain scalar, or
      // one with another tag, is resolved as PyYAML resolves plain scalars (yaml-cpp gives the CLI
      // the same distinction).
      const quoted = node.type !== Scalar.PLAIN;
      if (node.tag ? node.tag === '!' || node.tag === STR_TAG : quoted) return text;
      return yaml11PlainScalar(text);
    }
    if (isSeq(node)) return node.items.map((e) => this.build(e, depth + 1));
    if (isMap(node)) {
      /** @type {Record<string, unknown>} */
      const out = {};
      const isMerge = (/** @type {any} */ k) => isScalar(k) && k.value === '<<' && k.type === Scalar.PLAIN && !k.tag;
      // Merge keys (<<) first: the mapping's own keys override merged ones (PyYAML flatten_mapping).
      for (const pair of node.items) {
        if (!isMerge(pair.key)) continue;
        const v = /** @type {any} */ (pair.value);
        const sources = isSeq(v) ? v.items : [v];
        for (const src of sources) {
          const merged = this.build(src, depth + 1);
          if (merged === null || typeof merged !== 'object' || Array.isArray(merged)) throw new YamlProblem('a merge key (<<) needs a mapping', v && v.range);
          for (const [k, e] of Object.entries(merged)) if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = e;
        }
      }
      const own = new Set();
      for (const pair of node.items) {
        if (isMerge(pair.key)) continue;
        const k = /** @type {any} */ (pair.key);
        const keyNode = isAlias(k) ? this.resolve(k) : k;
        if (keyNode !== null && !isScalar(keyNode)) throw new YamlProblem('a mapping key must be a scalar', k.range);
        // Keys are text as written (JSON keys are text either way).
        const key = keyNode === null || keyNode.value === null || keyNode.value === undefined ? '' : String(keyNode.value);
        this.countText(key, k);
        if (own.has(key)) throw new YamlProblem(`the key "${key.slice(0, 64)}" appears more than once in its mapping`, k && k.range, 'duplicate_key', key.slice(0, 64));
        own.add(key);
        Object.defineProperty(out, key, { value: this.build(pair.value, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return null;
  }
}

/**
 * A YAML file's JSON value, as PyYAML's safe_load reads it.
 * @param {string} text
 * @param {string} name  for error messages
 * @returns {{content: unknown} | {error: FileProblem}}
 */
export function parseYaml(text, name) {
  const doc = parseDocument(text, { schema: 'failsafe', merge: false, uniqueKeys: false, prettyErrors: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    // npm yaml and the CLI's yaml-cpp stop on the same line but point at different characters of
    // it: both name the line's first character that is not a blank (docs/import.md).
    const line = e.linePos ? e.linePos[0].line : lineColumn(text, e.pos[0]).line;
    const where = { line, col: firstNonBlankColumn(text, line) };
    // npm yaml reports its own stack overflow on very deep nesting as an error: worded as the
    // nesting it is, as the CLI words yaml-cpp's recursion guard.
    const message = /call stack/i.test(e.message) ? `nests deeper than ${MAX_DEPTH} levels (the parser stops here)`
      : e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { error: { code: 'invalid_yaml', field: name, message: `${name}:${where.line}:${where.col}: ${message}`, params: { file: name, line: where.line, column: where.col } } };
  }
  try {
    return { content: new YamlBuilder(doc).build(doc.contents, 0) };
  } catch (e) {
    if (!(e instanceof YamlProblem)) throw e;
    const at = lineColumn(text, e.offset);
    const where = e.parserError ? { line: at.line, col: firstNonBlankColumn(text, at.line) } : at;
    /** @type {Record<string, string | number>} */
    const params = { file: name, line: where.line, column: where.col };
    if (e.key) params.key = e.key;
    return { error: { code: e.code, field: name, message: `${name}:${where.line}:${where.col}: ${e.message}`, params } };
  }
}

/**
 * A TOML value as JSON (as the CLI's toml++ reading): infinities and NaN as "inf", "-inf" and "nan";
 * dates and times as their TOML text.
 * @param {unknown} v
 * @returns {unknown}
 */
function tomlJson(v) {
  if (typeof v === 'number') return Number.isFinite(v) ? v : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
  if (typeof v === 'bigint') return Number(v);
  // smol-toml's dates print with milliseconds; toml++ prints whole seconds without them (a
  // fraction finer than milliseconds is beyond a JavaScript date: no framework key holds one).
  if (v instanceof Date) return v.toISOString().replace(/\.000(?=$|[Z+-])/, '');
  if (Array.isArray(v)) return v.map(tomlJson);
  if (v && typeof v === 'object') {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [k, e] of Object.entries(v)) Object.defineProperty(out, k, { value: tomlJson(e), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/**
 * A TOML file's JSON value.
 * @param {string} text
 * @param {string} name
 * @returns {{content: unknown} | {error: FileProblem}}
 */
export function parseTomlFile(text, name) {
  try {
    return { content: tomlJson(parseToml(text)) };
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    const message = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
    return { error: { code: 'invalid_toml', field: name, message: `${name}:${e.line}:${e.column}: ${message}`, params: { file: name, line: e.line, column: e.column } } };
  }
}

/** @param {string} name */
export const isYaml = (name) => /\.ya?ml$/.test(name);
/** @param {string} name */
export const isToml = (name) => name.endsWith('.toml');

/**
 * One file for the import request: YAML and TOML parsed here, anything else as its text (the
 * engine reads JSON files and command lines itself).
 * @param {string} name
 * @param {string} text
 * @returns {{file: ImportFile} | {error: FileProblem}}
 */
export function importFile(name, text) {
  const nul = text.indexOf('\0');
  if ((isYaml(name) || isToml(name)) && nul >= 0) {
    return { error: { code: isYaml(name) ? 'invalid_yaml' : 'invalid_toml', field: name, message: `${name} contains a NUL byte at character ${nul} (a text file has none)`, params: { file: name } } };
  }
  // An empty file of any kind is not parsed: the engine names it as empty (as the CLI does).
  if (text.trim() === '') return { file: { name, text } };
  const parsed = isYaml(name) ? parseYaml(text, name) : isToml(name) ? parseTomlFile(text, name) : null;
  if (parsed === null) return { file: { name, text } };
  if ('error' in parsed) return parsed;
  return { file: { name, content: parsed.content } };
}

/**
 * The file name a pasted text is read as: JSON when it is a JSON object, TOML when a line is a
 * `[table]` header, YAML when its first line is a `key:` (or `---`), otherwise a command line or launch script.
 * @param {string} text
 * @returns {string}
 */
export function pastedName(text) {
  const s = text.trim();
  if (s.startsWith('{')) return 'pasted.json';
  if (/^\s*\[[A-Za-z0-9_.\-" ]+\]\s*$/m.test(s) && !/^\s*-/m.test(s)) return 'pasted.toml';
  const first = s.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#')) || '';
  if (/^["']?[\w.\-]+["']?\s*:(\s|$)/.test(first) || first === '---') return 'pasted.yaml';
  return 'pasted.sh';
}

/**
 * A JSON value as a YAML file for a framework that reads it with PyYAML (an exported accelerate or
 * axolotl config): YAML 1.1, so that a string PyYAML would read as another type ("yes", "on",
 * "0777", "1:30") is quoted.
 * @param {unknown} value
 * @returns {string}
 */
export function yamlText(value) {
  return stringify(value, { version: '1.1' });
}
