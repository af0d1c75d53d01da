// Turns a TypeBox schema into a plain OpenAPI object the apiserver accepts: only enumerable JSON
// keys survive (TypeBox's own markers are not enumerable), empty `required` lists go, and object
// keys are sorted so the generated YAML is byte-stable whatever order the code declares them in.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) {
    const child = value[key];
    if (child === undefined) continue;
    if (key === 'required' && Array.isArray(child) && child.length === 0) continue;
    out[key] = sortKeys(child);
  }
  return out;
}

/** A deep, plain, key-sorted copy of a schema or any JSON-like object. */
export function normalize(value: unknown): Json {
  return sortKeys(JSON.parse(JSON.stringify(value)) as Json);
}
