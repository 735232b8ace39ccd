//go:build unix

package fakehook

import "syscall"

func escapeAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func ownGroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
