//go:build !linux

package hook

import "syscall"

// Elsewhere than Linux there is no parent-death signal and no child subreaper: a hook's
// process group is killed when it ends, and a descendant that left the group is not found.
func dieWithParent(*syscall.SysProcAttr) {}

func hookStarted(int) {}

func reapEscaped(int) {}
