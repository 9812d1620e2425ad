package testenv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// keyPair is a PEM certificate and its PKCS#1 private key (Kueue's cert
// controller only parses "RSA PRIVATE KEY" blocks).
type keyPair struct {
	cert    *x509.Certificate
	key     *rsa.PrivateKey
	CertPEM []byte
	KeyPEM  []byte
}

type certSpec struct {
	commonName string
	orgs       []string
	dnsNames   []string
	ips        []net.IP
	isCA       bool
	usages     []x509.ExtKeyUsage
}

// newCert issues a certificate for spec, signed by parent (self-signed when nil).
func newCert(spec certSpec, parent *keyPair) (*keyPair, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate key for %s: %w", spec.commonName, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: spec.commonName, Organization: spec.orgs},
		DNSNames:     spec.dnsNames,
		IPAddresses:  spec.ips,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  spec.usages,
	}
	if spec.isCA {
		tmpl.IsCA = true
		tmpl.BasicConstraintsValid = true
		tmpl.KeyUsage |= x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, fmt.Errorf("sign certificate for %s: %w", spec.commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{
		cert:    cert,
		key:     key,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}, nil
}

// pki holds every credential the local control plane uses.
type pki struct {
	dir         string
	clusterCA   *keyPair // signs the apiserver serving cert and the admin client cert
	apiserver   *keyPair
	admin       *keyPair
	saKey       *rsa.PrivateKey
	kueueCA     *keyPair // Kueue's webhook CA; its SAN must be DNS:kueue-ca
	kueueServe  *keyPair
	jobsetCA    *keyPair // the JobSet manager's webhook CA
	jobsetServe *keyPair
}

var loopback = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}

func newPKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	var err error
	if p.clusterCA, err = newCert(certSpec{commonName: "mlplatform-sandbox-ca", isCA: true}, nil); err != nil {
		return nil, err
	}
	if p.apiserver, err = newCert(certSpec{
		commonName: "kube-apiserver", dnsNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		ips: loopback, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, p.clusterCA); err != nil {
		return nil, err
	}
	if p.admin, err = newCert(certSpec{
		commonName: "mlplatform-admin", orgs: []string{"system:masters"},
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.clusterCA); err != nil {
		return nil, err
	}
	if p.saKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		return nil, err
	}
	if p.kueueCA, err = newCert(certSpec{commonName: "kueue-ca", dnsNames: []string{"kueue-ca"}, isCA: true}, nil); err != nil {
		return nil, err
	}
	if p.kueueServe, err = newCert(certSpec{
		commonName: "kueue-webhook-service.kueue-system.svc",
		dnsNames:   []string{"kueue-webhook-service.kueue-system.svc", "kueue-webhook-service.kueue-system.svc.cluster.local"},
		ips:        loopback, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, p.kueueCA); err != nil {
		return nil, err
	}
	if p.jobsetCA, err = newCert(certSpec{commonName: "jobset-ca", orgs: []string{"jobset"}, isCA: true}, nil); err != nil {
		return nil, err
	}
	if p.jobsetServe, err = newCert(certSpec{
		commonName: "jobset-webhook-service.jobset-system.svc",
		dnsNames:   []string{"jobset-webhook-service.jobset-system.svc", "jobset-webhook-service.jobset-system.svc.cluster.local"},
		ips:        loopback, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, p.jobsetCA); err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&p.saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"ca.crt":         p.clusterCA.CertPEM,
		"apiserver.crt":  p.apiserver.CertPEM,
		"apiserver.key":  p.apiserver.KeyPEM,
		"sa.key":         pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(p.saKey)}),
		"sa.pub":         pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		"kueue/ca.crt":   p.kueueCA.CertPEM,
		"kueue/ca.key":   p.kueueCA.KeyPEM,
		"kueue/tls.crt":  p.kueueServe.CertPEM,
		"kueue/tls.key":  p.kueueServe.KeyPEM,
		"jobset/tls.crt": p.jobsetServe.CertPEM,
		"jobset/tls.key": p.jobsetServe.KeyPEM,
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }
