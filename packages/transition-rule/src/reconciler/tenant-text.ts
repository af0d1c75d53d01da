// A failed call as the tenant sees it in pod reasons, the rule status and Events: the fixed class
// (call-failure.ts), or what an answer broke of the protocol, in our words. The detail of a
// transport error (addresses, the peer's words) goes to the controller's log only.
import { failureText } from '../core/call-failure.ts';
import { ProtocolError } from '../core/protocol.ts';
import { WebhookCallError } from '../http/webhook-client.ts';

export function tenantText(err: unknown): string {
  if (err instanceof WebhookCallError) return failureText(err.failure);
  return err instanceof ProtocolError ? `invalid-response (${err.message})` : 'invalid-response';
}
