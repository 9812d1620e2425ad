// Command rsswrap stands in for terraform-provider-mlplatform in `make
// bench`: registered through dev_overrides, it runs the real provider
// ($MLPLATFORM_BENCH_PROVIDER) as its child with stdio passed through, so the
// go-plugin handshake and the gRPC connection are the provider's own, and
// when the child exits appends one line to $MLPLATFORM_BENCH_RUSAGE:
//
//	<pid> <peak RSS in KiB> <user µs> <system µs>
//
// from the child's rusage (wait4). It exits with the child's exit code.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	provider, out := os.Getenv("MLPLATFORM_BENCH_PROVIDER"), os.Getenv("MLPLATFORM_BENCH_RUSAGE")
	if provider == "" || out == "" {
		fmt.Fprintln(os.Stderr, "rsswrap: set MLPLATFORM_BENCH_PROVIDER and MLPLATFORM_BENCH_RUSAGE")
		os.Exit(1)
	}
	cmd := exec.Command(provider, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(1)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		line := fmt.Sprintf("%d %d %d %d\n", cmd.Process.Pid, ru.Maxrss, ru.Utime.Nano()/1e3, ru.Stime.Nano()/1e3)
		if f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
