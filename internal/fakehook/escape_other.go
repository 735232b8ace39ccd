//go:build !unix

package fakehook

import "syscall"

func escapeAttr() *syscall.SysProcAttr { return nil }

func ownGroupAttr() *syscall.SysProcAttr { return nil }
