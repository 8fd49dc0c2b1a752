// Package config reads ktopo's config file, $XDG_CONFIG_HOME/ktopo/config.yaml
// (~/.config/ktopo/config.yaml without XDG_CONFIG_HOME): named contexts,
// each a cluster with its ZooKeeper connect string (digest authentication,
// TLS files) or, for a KRaft cluster, its bootstrap servers and Kafka
// client properties file, and whether it is read-only or production.
//
//	contexts:
//	  prod:
//	    zookeeper: zk1:2281,zk2:2281,zk3:2281/kafka
//	    digest: admin:secret
//	    zk-tls-ca: certs/zk-ca.pem      # relative to the config file's directory
//	    zk-tls-cert: certs/ktopo.crt
//	    zk-tls-key: ~/.ssh/ktopo.key
//	    read-only: true
//	    production: true
//	  staging:
//	    zookeeper: zk.staging:2181/kafka
//	    session-timeout: 30s
//	  kraft:
//	    bootstrap-server: kafka1:9093,kafka2:9093
//	    command-config: kraft-client.properties   # TLS/SASL, as Kafka's tools take it
//
// A file holding a digest is a secret: Permissions reports when others may
// read it.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Context is one named cluster.
type Context struct {
	Name string `yaml:"-"`
	// Zookeeper is the connect string, host:port[,host:port…][/chroot].
	Zookeeper string `yaml:"zookeeper"`
	// BootstrapServer is a KRaft cluster's brokers, host:port[,host:port…]
	// (instead of Zookeeper); CommandConfig its Kafka client properties
	// file (TLS, SASL), as --bootstrap-server and --command-config.
	BootstrapServer string `yaml:"bootstrap-server"`
	CommandConfig   string `yaml:"command-config"`
	// Digest is "user:password" for ZooKeeper digest authentication.
	Digest string `yaml:"digest"`
	// ReadOnly makes ktopo refuse every write to this cluster.
	ReadOnly bool `yaml:"read-only"`
	// Production paints the mode badge in the production colour.
	Production bool `yaml:"production"`
	// SessionTimeout, when set, overrides the default session timeout.
	SessionTimeout time.Duration `yaml:"session-timeout"`
	// TLSCA, TLSCert and TLSKey are PEM files for ZooKeeper's
	// secureClientPort (the CA of the servers' certificates, the client's
	// certificate and key), as --zk-tls-ca, --zk-tls-cert and
	// --zk-tls-key. Parse resolves them: ~ is the home directory, a
	// relative path is relative to the config file's directory.
	TLSCA   string `yaml:"zk-tls-ca"`
	TLSCert string `yaml:"zk-tls-cert"`
	TLSKey  string `yaml:"zk-tls-key"`
}

// File is the config file.
type File struct {
	Path     string              `yaml:"-"`
	Contexts map[string]*Context `yaml:"contexts"`
}

// Path returns where the config file is looked for.
func Path() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(".config", "ktopo", "config.yaml")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "ktopo", "config.yaml")
}

// Load reads the file at path. A missing file is an empty config.
func Load(path string) (*File, error) {
	f := &File{Path: path, Contexts: map[string]*Context{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes config data (path names it in errors). Unknown keys are
// errors, so a typo does not silently drop a setting such as read-only.
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if f.Contexts == nil {
		f.Contexts = map[string]*Context{}
	}
	for name, c := range f.Contexts {
		if c == nil {
			return nil, fmt.Errorf("%s: context %q is empty", path, name)
		}
		c.Name = name
		zkc, kc := strings.TrimSpace(c.Zookeeper) != "", strings.TrimSpace(c.BootstrapServer) != ""
		switch {
		case !zkc && !kc:
			return nil, fmt.Errorf("%s: context %q has no zookeeper connect string (or bootstrap-server, for a KRaft cluster)", path, name)
		case zkc && kc:
			return nil, fmt.Errorf("%s: context %q has both zookeeper and bootstrap-server: give one", path, name)
		case kc && (c.Digest != "" || c.TLSCA != "" || c.TLSCert != "" || c.TLSKey != "" || c.SessionTimeout != 0):
			return nil, fmt.Errorf("%s: context %q: digest, zk-tls-* and session-timeout are for ZooKeeper; a KRaft cluster's TLS and SASL settings go in its command-config file", path, name)
		case zkc && c.CommandConfig != "":
			return nil, fmt.Errorf("%s: context %q: command-config is for a KRaft cluster (bootstrap-server)", path, name)
		}
		if c.Digest != "" && !strings.Contains(c.Digest, ":") {
			return nil, fmt.Errorf("%s: context %q: digest must be user:password", path, name)
		}
		if c.SessionTimeout < 0 {
			return nil, fmt.Errorf("%s: context %q: session-timeout must not be negative", path, name)
		}
		for _, p := range []*string{&c.TLSCA, &c.TLSCert, &c.TLSKey, &c.CommandConfig} {
			*p = resolve(path, *p)
		}
	}
	return f, nil
}

// resolve makes a file named in the config file absolute: ~/ is the home
// directory, a relative path is relative to the config file's directory
// (as kubectl does with its kubeconfig's files).
func resolve(configPath, p string) string {
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
		return p
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(filepath.Dir(configPath), p)
}

// HasSecrets reports whether any context holds a digest password.
func (f *File) HasSecrets() bool {
	for _, c := range f.Contexts {
		if c.Digest != "" {
			return true
		}
	}
	return false
}

// Permissions returns a warning when the file holds secrets (HasSecrets)
// and others may read it (group or world read permission), as ssh and
// kubectl warn: "" when all is well or the file does not exist. ktopo
// warns rather than refuses: the cluster may still be reached, and the
// operator is told the one command that fixes it.
func (f *File) Permissions() string {
	if !f.HasSecrets() {
		return ""
	}
	return Exposed(f.Path, "holds a ZooKeeper password (digest)")
}

// Exposed returns a warning when the file at path may be read by others
// than its owner ("" otherwise, or when it cannot be examined); what says
// what the file holds.
func Exposed(path, what string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	mode := info.Mode().Perm()
	if mode&0o044 == 0 {
		return ""
	}
	who := "its group"
	if mode&0o004 != 0 {
		who = "every user"
	}
	return fmt.Sprintf("warning: %s %s and is readable by %s (mode %04o): chmod 600 %s", path, what, who, mode, path)
}

// Names returns the context names, sorted.
func (f *File) Names() []string {
	out := make([]string, 0, len(f.Contexts))
	for n := range f.Contexts {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Context returns the named context, or an error listing the known ones.
func (f *File) Context(name string) (*Context, error) {
	if c, ok := f.Contexts[name]; ok {
		return c, nil
	}
	if len(f.Contexts) == 0 {
		return nil, fmt.Errorf("unknown context %q: %s defines no contexts", name, f.Path)
	}
	return nil, fmt.Errorf("unknown context %q: %s defines %s", name, f.Path, strings.Join(f.Names(), ", "))
}
