//go:build !linux

package testenv

import "syscall"

// childProcAttr: its own process group. Only Linux has a parent-death signal,
// so elsewhere (the darwin build of the mlplatform CLI) a child can outlive a
// harness that is killed; Stop still ends the whole group.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
