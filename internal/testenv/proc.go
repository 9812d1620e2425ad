package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one child of the environment. Each runs in its own process group
// with a parent-death signal, so nothing outlives the harness even when the
// harness itself is killed.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error // exit error, valid once done is closed
	// grace is how long Stop waits after SIGTERM before SIGKILL.
	grace time.Duration
}

func startProcess(name, logDir string, grace time.Duration, env []string, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{}), grace: grace}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) Pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group, then SIGKILL after the grace period
// (Kueue ignores SIGTERM while its certificate bootstrap is stuck).
func (p *process) Stop() {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(p.grace):
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
	}
}

// failure describes a process that could not start, with the tail of its log.
func (p *process) failure(what string) error {
	state := "is still running"
	if p.exited() {
		state = fmt.Sprintf("exited (%v)", p.err)
	}
	return fmt.Errorf("%s %s: %s; last lines of %s:\n%s", p.name, state, what, p.logPath, tail(p.logPath, 15))
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(data, nil)), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

// waitFor polls check until it returns nil, the process exits, or the
// deadline passes.
func (p *process) waitFor(ctx context.Context, timeout time.Duration, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if p.exited() {
			return p.failure("while waiting until " + what)
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return p.failure(fmt.Sprintf("not %s after %v (last check: %v)", what, timeout, last))
		case <-p.done:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePorts reserves n distinct loopback ports below the kernel's ephemeral
// range. A port taken with Listen("127.0.0.1:0") comes from that range, and
// every outgoing connection of the processes started between the pick and
// the use (etcd, the API server, the controller manager, the Kueue manager:
// tens of seconds) draws its source port from it too; a CI run once lost the
// Kueue manager's health port that way ("bind: address already in use").
// Below the range only an explicit bind takes a port. Each pick is checked by
// listening on it; the listeners are closed before returning.
func freePorts(n int) ([]int, error) {
	low := ephemeralLow()
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, fmt.Errorf("reserve a loopback port: no free port in 10000-%d after %d tries", low-1, tries)
		}
		port := 10000 + rand.IntN(low-10000)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, port)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// net.ipv4.ip_local_port_range; 32768 where it cannot be read).
func ephemeralLow() int {
	const fallback = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return fallback
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return fallback
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low <= 11000 {
		return fallback
	}
	return low
}

var errNotReady = errors.New("not ready")
