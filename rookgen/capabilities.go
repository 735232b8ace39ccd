package main

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// writeCapabilities sets the profile file's capabilities to c, keeping its other keys and
// its comments, and writes it back atomically.
func writeCapabilities(path string, c spec.Capabilities) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("write capabilities: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("write capabilities to %s: %w", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("write capabilities to %s: the profile is not a mapping", path)
	}
	root := doc.Content[0]
	caps := value(root, "capabilities")
	switch {
	case caps == nil:
		caps = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "capabilities"}, caps)
	case caps.Kind != yaml.MappingNode: // capabilities: with nothing under it
		*caps = yaml.Node{Kind: yaml.MappingNode}
	}
	for _, kv := range []struct {
		key string
		on  bool
	}{{"multi_turn", c.MultiTurn}, {"calls", c.Calls}, {"usage", c.Usage}} {
		b := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(kv.on)}
		if v := value(caps, kv.key); v != nil {
			v.Kind, v.Tag, v.Value, v.Style = b.Kind, b.Tag, b.Value, 0
			continue
		}
		caps.Content = append(caps.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv.key}, b)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("write capabilities to %s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write capabilities to %s: %w", path, err)
	}
	return store.WriteFile(path, out.Bytes())
}

// value is the value of key in mapping m, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
