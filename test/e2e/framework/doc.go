// Package framework starts and stops a real etcd and kube-apiserver for the
// end-to-end tests: binaries from the version cache hack/kube/build.sh fills,
// free ports on 127.0.0.1, a temp work dir with self-signed certs (openssl),
// a token file with an admin and an unprivileged user, RBAC authorization and
// service-account keys.
//
// A Cluster is started once per test binary (from TestMain) and stopped on
// every exit path: Stop stops kube-apiserver before etcd and removes the work
// dir. Children get SIGKILL if the test process dies without cleaning up
// (Pdeathsig), and each writes a pid file under $E2E_PID_DIR when set so that
// hack/e2e.sh can verify that nothing is left behind.
package framework
