// What counts as a successful answer under load, as data (it crosses into the generator's worker).

export interface ExpectedResponse {
  status: number;
  /** Text the body must contain, e.g. '"allowed":true'. */
  bodyIncludes?: string;
}

/** undefined when the answer is as expected, else why not. */
export function checkResponse(expected: ExpectedResponse, status: number, body: string): string | undefined {
  if (status !== expected.status) return `HTTP ${status}: ${body.slice(0, 200)}`;
  if (expected.bodyIncludes !== undefined && !body.includes(expected.bodyIncludes)) return `no ${expected.bodyIncludes} in ${body.slice(0, 200)}`;
  return undefined;
}
