//go:build !unix

package main

import "os"

// maxrssKB cannot be read here: the scale benchmark then says its peak cannot be told.
func maxrssKB(*os.ProcessState) int64 { return 0 }
