// A Service's `spec.selector` against a pod's labels, as the EndpointSlice controller reads it:
// an empty or absent selector selects no pod (such a Service's endpoints are managed by hand).

export type ServiceSelector = Readonly<Record<string, string>> | null | undefined;

export function serviceSelects(selector: ServiceSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
}
