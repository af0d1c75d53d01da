// The context one admission request hands its handler. The pod webhooks answer thousands of
// requests a second and almost never log or watch for the time limit, so the request's logger
// child and its AbortController are made only when a handler (or the server) first asks for them.
import type { Logger } from '@cloneset-suite/kube-runtime';
import type { AdmissionRequest } from '../webhooks/admission-review.ts';
import type { AdmissionContext } from '../webhooks/types.ts';

export class RequestContext implements AdmissionContext {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  private child: Logger | undefined;
  private readonly parent: Logger;
  private readonly webhook: string;
  private readonly request: AdmissionRequest;

  constructor(parent: Logger, webhook: string, request: AdmissionRequest) {
    this.parent = parent;
    this.webhook = webhook;
    this.request = request;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  get logger(): Logger {
    this.child ??= this.parent.child({
      webhook: this.webhook,
      uid: this.request.uid,
      operation: this.request.operation,
      object: `${this.request.namespace ?? ''}/${this.request.name ?? ''}`,
    });
    return this.child;
  }

  /** Aborts the signal, now if a handler holds it, else as soon as one asks for it. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}
