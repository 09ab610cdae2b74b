# shellcheck shell=bash
# Versions of the control-plane binaries the e2e suite runs against. kube-apiserver matches the
# k8s.io/apimachinery release the project uses (v0.37.2 <-> v1.37.2); etcd is a 3.6 release that
# kube-apiserver 1.37 supports. Override through the environment to try another release.
: "${KUBE_VERSION:=v1.37.2}"
: "${KUBE_STAGING_VERSION:=v0.${KUBE_VERSION#v1.}}"
: "${ETCD_VERSION:=v3.6.16}"
: "${TYPEDINFORMER_CACHE:=${HOME}/.cache/typedinformer}"
export KUBE_VERSION KUBE_STAGING_VERSION ETCD_VERSION TYPEDINFORMER_CACHE
