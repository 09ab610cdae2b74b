//go:build !soak_leak

package main

// sabotageReconcileEnd runs after every reconcile. This build does
// nothing; the soak_leak build leaks a goroutine, for a test that requires
// the soak's leak check to fire.
func sabotageReconcileEnd() {}
