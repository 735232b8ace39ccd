//go:build !linux

package supervisor

import (
	"errors"
	"os"
	"syscall"
)

// Proc is a hook started under the supervisor; there is none here.
type Proc struct{ Pid int }

// Start returns errors.ErrUnsupported: there is no child subreaper here to build on.
func Start(argv []string, dir string, env []string, stdin, stdout, stderr *os.File) (*Proc, error) {
	return nil, errors.ErrUnsupported
}

func (p *Proc) Signal(syscall.Signal) error { return errors.ErrUnsupported }

func (p *Proc) Done() <-chan struct{} { return nil }

func (p *Proc) Wait() Exit { return Exit{Err: errors.ErrUnsupported} }
