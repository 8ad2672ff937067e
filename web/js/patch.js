// patch.js - RFC 6902 JSON Patch, applied in place to a copy of the state
// (docs/protocol.md: patch.ops). Throws on an op that does not apply; the
// page then asks for a sync.

function unescape(t) { return t.replace(/~1/g, '/').replace(/~0/g, '~'); }

function parent(doc, path) {
  if (path === '') return { obj: null, key: null };
  if (path[0] !== '/') throw new Error(`bad pointer ${path}`);
  const toks = path.slice(1).split('/').map(unescape);
  let obj = doc;
  for (let i = 0; i < toks.length - 1; i++) {
    const k = Array.isArray(obj) ? Number(toks[i]) : toks[i];
    if (obj === null || typeof obj !== 'object' || !(k in obj)) throw new Error(`no ${path}`);
    obj = obj[k];
  }
  return { obj, key: toks[toks.length - 1] };
}

function get(doc, path) {
  const { obj, key } = parent(doc, path);
  if (obj === null) return doc;
  const k = Array.isArray(obj) ? Number(key) : key;
  if (!(k in obj)) throw new Error(`no ${path}`);
  return obj[k];
}

function add(doc, path, value) {
  const { obj, key } = parent(doc, path);
  if (obj === null) return value;
  if (Array.isArray(obj)) {
    const i = key === '-' ? obj.length : Number(key);
    if (!(i >= 0 && i <= obj.length)) throw new Error(`bad index ${path}`);
    obj.splice(i, 0, value);
  } else obj[key] = value;
  return doc;
}

function remove(doc, path) {
  const { obj, key } = parent(doc, path);
  if (obj === null) throw new Error('cannot remove the root');
  if (Array.isArray(obj)) {
    const i = Number(key);
    if (!(i >= 0 && i < obj.length)) throw new Error(`bad index ${path}`);
    obj.splice(i, 1);
  } else {
    if (!(key in obj)) throw new Error(`no ${path}`);
    delete obj[key];
  }
  return doc;
}

const clone = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

// Apply ops to doc; returns the new document (the root may be replaced).
export function applyPatch(doc, ops) {
  for (const op of ops) {
    switch (op.op) {
      case 'add': doc = add(doc, op.path, clone(op.value)); break;
      case 'remove': doc = remove(doc, op.path); break;
      case 'replace':
        if (op.path === '') { doc = clone(op.value); break; }
        get(doc, op.path);
        doc = add(remove(doc, op.path), op.path, clone(op.value));
        break;
      case 'move': { const v = get(doc, op.from); doc = remove(doc, op.from); doc = add(doc, op.path, v); break; }
      case 'copy': doc = add(doc, op.path, clone(get(doc, op.from))); break;
      case 'test': if (JSON.stringify(get(doc, op.path)) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`); break;
      default: throw new Error(`unknown op ${op.op}`);
    }
  }
  return doc;
}
