// Package config reads ktopo's config file, $XDG_CONFIG_HOME/ktopo/config.yaml
// (~/.config/ktopo/config.yaml without XDG_CONFIG_HOME): named contexts,
// each a cluster with its connect string, digest authentication and
// whether it is read-only or production.
//
//	contexts:
//	  prod:
//	    zookeeper: zk1:2181,zk2:2181,zk3:2181/kafka
//	    digest: admin:secret
//	    read-only: true
//	    production: true
//	  staging:
//	    zookeeper: zk.staging:2181/kafka
//	    session-timeout: 30s
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
	// Digest is "user:password" for ZooKeeper digest authentication.
	Digest string `yaml:"digest"`
	// ReadOnly makes ktopo refuse every write to this cluster.
	ReadOnly bool `yaml:"read-only"`
	// Production paints the mode badge in the production colour.
	Production bool `yaml:"production"`
	// SessionTimeout, when set, overrides the default session timeout.
	SessionTimeout time.Duration `yaml:"session-timeout"`
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
		if strings.TrimSpace(c.Zookeeper) == "" {
			return nil, fmt.Errorf("%s: context %q has no zookeeper connect string", path, name)
		}
		if c.Digest != "" && !strings.Contains(c.Digest, ":") {
			return nil, fmt.Errorf("%s: context %q: digest must be user:password", path, name)
		}
		if c.SessionTimeout < 0 {
			return nil, fmt.Errorf("%s: context %q: session-timeout must not be negative", path, name)
		}
	}
	return f, nil
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
