// Package controller is the reconcile loop over typed informers and a typed
// work queue: event handlers turn informer notifications into Requests,
// workers take them off the queue one at a time and call a Reconciler, and
// the outcome decides whether and when the request comes back.
//
// The flow:
//
//	informer ── OnAdd/OnUpdate/OnDelete ──▶ predicates ──▶ EventHandler ──▶ queue
//	queue ── Get ──▶ worker ──▶ Reconcile(ctx, Request) ──▶ Forget / AddRateLimited / AddAfter
//
// Reconcile outcomes:
//
//   - error: retried after the rate limiter's delay (per-request exponential
//     backoff by default);
//   - TerminalError(err): not retried; logged and counted;
//   - Result{RequeueAfter: d}: backoff forgotten, retried once after d;
//   - Result{Requeue: true}: retried after the rate limiter's delay;
//   - success: backoff forgotten;
//   - a panic (RecoverPanic, on by default): recovered, logged, counted and
//     retried like an error.
//
// The queue hands a Request to one worker at a time, so the same object is
// never reconciled concurrently; objects of an informer's initial list are
// queued behind live events.
package controller
