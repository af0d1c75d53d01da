// metav1.MicroTime: RFC 3339 with exactly six fractional digits (the apiserver parses that layout).
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
