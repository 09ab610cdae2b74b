package framework

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// pki holds the paths of the certificates and keys of one cluster.
type pki struct {
	caCert     string // CA that signed the serving cert; goes into the kubeconfig
	serverCert string // kube-apiserver serving cert for 127.0.0.1 and localhost
	serverKey  string
	saKey      string // service-account signing key (RSA private)
	saPub      string // its public half, for verifying tokens
}

// newPKI creates a CA, a serving cert it signs and a service-account key
// pair in dir with openssl.
func newPKI(dir string) (*pki, error) {
	p := &pki{
		caCert:     filepath.Join(dir, "ca.crt"),
		serverCert: filepath.Join(dir, "apiserver.crt"),
		serverKey:  filepath.Join(dir, "apiserver.key"),
		saKey:      filepath.Join(dir, "sa.key"),
		saPub:      filepath.Join(dir, "sa.pub"),
	}
	caKey := filepath.Join(dir, "ca.key")
	csr := filepath.Join(dir, "apiserver.csr")
	ext := filepath.Join(dir, "apiserver.ext")
	if err := os.WriteFile(ext, []byte("basicConstraints=CA:FALSE\n"+
		"keyUsage=critical,digitalSignature,keyEncipherment\n"+
		"extendedKeyUsage=serverAuth\n"+
		"subjectAltName=IP:127.0.0.1,DNS:localhost\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing %s: %w", ext, err)
	}
	steps := [][]string{
		{"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", p.caCert, "-days", "2",
			"-subj", "/CN=typedinformer-e2e-ca",
			"-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"},
		{"req", "-newkey", "rsa:2048", "-nodes", "-keyout", p.serverKey, "-out", csr, "-subj", "/CN=kube-apiserver"},
		{"x509", "-req", "-in", csr, "-CA", p.caCert, "-CAkey", caKey, "-CAcreateserial", "-out", p.serverCert,
			"-days", "2", "-extfile", ext},
		{"genrsa", "-out", p.saKey, "2048"},
		{"rsa", "-in", p.saKey, "-pubout", "-out", p.saPub},
	}
	for _, args := range steps {
		if err := runOpenSSL(dir, args); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func runOpenSSL(dir string, args []string) error {
	cmd := exec.Command("openssl", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("openssl %s: %w\n%s", args[0], err, out.String())
	}
	return nil
}
