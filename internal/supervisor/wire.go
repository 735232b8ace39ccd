//go:build linux

package supervisor

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// message is one frame between the test process and the supervisor. Gob carries strings as
// bytes, so arguments and environment values that are not UTF-8 arrive unchanged.
type message struct {
	Op string // start, signal (to the supervisor); started, failed, exited (from it)
	ID uint64
	// start
	Argv []string
	Dir  string
	Env  []string
	// signal
	Sig syscall.Signal
	// started, failed, exited
	Pid    int
	Errno  syscall.Errno
	Status syscall.WaitStatus
	Left   []Process
	CPU    time.Duration // exited: the hook's user and system time
}

// maxFrame bounds a frame: an environment and arguments of a few MiB at most.
const maxFrame = 64 << 20

// wire sends and receives frames (a 4-byte length, then the gob) on a stream socket, and
// the files passed with them.
type wire struct {
	conn *net.UnixConn
	wmu  sync.Mutex
	buf  []byte     // received bytes not yet framed
	fds  []*os.File // received files not yet taken, in order
	// in and oob are read into, again and again.
	in, oob []byte
}

// send writes m, and files with its first byte.
func (w *wire) send(m *message, files ...*os.File) error {
	var body bytes.Buffer
	body.Write(make([]byte, 4))
	if err := gob.NewEncoder(&body).Encode(m); err != nil {
		return fmt.Errorf("encode %s: %w", m.Op, err)
	}
	frame := body.Bytes()
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	n, _, err := w.conn.WriteMsgUnix(frame, oob, nil)
	if err == nil && n < len(frame) {
		_, err = w.conn.Write(frame[n:])
	}
	return err
}

// receive reads the next frame, and takes the files it carries (nfiles of them).
func (w *wire) receive(nfiles func(*message) int) (*message, []*os.File, error) {
	for {
		if len(w.buf) >= 4 {
			n := int(binary.BigEndian.Uint32(w.buf))
			if n > maxFrame {
				return nil, nil, fmt.Errorf("a frame of %d bytes", n)
			}
			if len(w.buf) >= 4+n {
				m := &message{}
				err := gob.NewDecoder(bytes.NewReader(w.buf[4 : 4+n])).Decode(m)
				w.buf = w.buf[4+n:]
				if err != nil {
					return nil, nil, fmt.Errorf("decode a frame: %w", err)
				}
				k := nfiles(m)
				if k > len(w.fds) {
					return nil, nil, fmt.Errorf("%s came with %d files, not %d", m.Op, len(w.fds), k)
				}
				files := w.fds[:k:k]
				w.fds = w.fds[k:]
				return m, files, nil
			}
		}
		if err := w.read(); err != nil {
			return nil, nil, err
		}
	}
}

// read appends what the socket holds to buf, and the files passed with it to fds.
func (w *wire) read() error {
	if w.in == nil {
		w.in, w.oob = make([]byte, 64<<10), make([]byte, syscall.CmsgSpace(16*4))
	}
	p, oob := w.in, w.oob
	n, oobn, flags, _, err := w.conn.ReadMsgUnix(p, oob)
	if oobn > 0 {
		msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn])
		if perr != nil {
			return fmt.Errorf("parse passed files: %w", perr)
		}
		for _, cm := range msgs {
			fds, _ := syscall.ParseUnixRights(&cm) // not a rights message: nothing to take
			for _, fd := range fds {
				w.fds = append(w.fds, os.NewFile(uintptr(fd), "passed"))
			}
		}
	}
	if flags&syscall.MSG_CTRUNC != 0 {
		return errors.New("passed files were cut off")
	}
	w.buf = append(w.buf, p[:n]...)
	if n == 0 && err == nil {
		return errors.New("the socket ended")
	}
	return err
}
