package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/rookgo/rookgo/internal/site"
	"github.com/rookgo/rookgo/internal/spec"
)

// uiCmd is rookgen ui: the view over every run under the records root, served read-only on
// the loopback interface until interrupted.
func uiCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen ui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "where to listen (a loopback address; port 0 picks a free one)")
	open := fs.Bool("open", false, "open the view in the browser")
	dir := fs.String("dir", "", "records root (default .rook/runs at the module root)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rookgen ui: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := serveUI(ctx, *addr, newSite(*dir), func(url string) {
		fmt.Fprintf(stdout, "rookgen ui: serving the records at %s (read-only; Ctrl-C stops)\n", url)
		if *open {
			if err := openBrowser(url); err != nil {
				fmt.Fprintf(stderr, "rookgen ui: could not open a browser (%v); open %s\n", err, url)
			}
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "rookgen ui: %v\n", err)
		return 1
	}
	return 0
}

// newSite is the view of the records root dir (the module's, by default), with the
// module's scenarios and features when run inside one.
func newSite(dir string) *site.Site {
	s := &site.Site{Root: dir}
	if mod, _, err := spec.ModuleRootOfWorkingDir(); err == nil {
		s.Module = mod
		s.Root = spec.RecordsRoot(mod, dir)
	}
	return s
}

// serveUI serves s on addr until ctx ends, calling ready with the URL once it listens.
func serveUI(ctx context.Context, addr string, s *site.Site, ready func(url string)) error {
	if err := site.Loopback(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: site.LoopbackHosts(s.Handler(), addr), ReadHeaderTimeout: 10 * time.Second}
	ready("http://" + ln.Addr().String() + "/")
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func openBrowser(url string) error {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url).Start()
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	}
	return exec.Command("xdg-open", url).Start()
}
