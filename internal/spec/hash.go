package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// ContentHash is the hex SHA-256 of a YAML file's content with its line endings
// normalised, so that a checkout with core.autocrlf=true (CRLF on disk) hashes as the LF
// file it was generated from.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	return hex.EncodeToString(sum[:])
}
