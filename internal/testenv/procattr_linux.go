package testenv

import "syscall"

// childProcAttr: its own process group, and SIGKILL when the harness dies.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
