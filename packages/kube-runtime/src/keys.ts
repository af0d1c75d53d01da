// Object keys, as client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" when cluster-scoped.

export interface ObjectMetaLike {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
}

export function objectKey(obj: ObjectMetaLike): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  if (i < 0) return { namespace: undefined, name: key };
  if (key.indexOf('/', i + 1) >= 0) throw new Error(`invalid object key ${JSON.stringify(key)}`);
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
