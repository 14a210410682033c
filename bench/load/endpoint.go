package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"leash.dev/leash/bench/internal/procmem"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// endpoint is the leash local under load and the administrator's key.
type endpoint struct {
	url               string
	adminID, adminKey string
	pid               int // a running server's process, 0 for this one
	srv               *localaws.Server
	stop              context.CancelFunc
	served            chan error
	tempDir           string
}

func newEndpoint(ctx context.Context, o options) (*endpoint, error) {
	if o.url != "" {
		key, err := iamclient.KeyFromFile(o.creds)
		if err != nil {
			return nil, err
		}
		return &endpoint{url: strings.TrimSuffix(o.url, "/"), adminID: key.ID, adminKey: key.Secret.Reveal(), pid: o.pid}, nil
	}
	e := &endpoint{}
	dir := o.data
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "leash-load-"); err != nil {
			return nil, err
		}
		e.tempDir = dir
	}
	srv, err := localaws.Open(localaws.Config{DataDir: dir})
	if err != nil {
		e.close()
		return nil, err
	}
	e.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.close()
		return nil, err
	}
	e.url = "http://" + ln.Addr().String()
	serveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stop, e.served = stop, make(chan error, 1)
	go func() { e.served <- srv.Serve(serveCtx, ln) }()
	key, err := iamclient.KeyFromFile(srv.AdminCredentialsPath())
	if err != nil {
		e.close()
		return nil, err
	}
	e.adminID, e.adminKey = key.ID, key.Secret.Reveal()
	return e, nil
}

// where says where the server runs and whose CPU and memory are reported.
func (e *endpoint) where() string {
	switch {
	case e.srv != nil:
		return "in this process; CPU and memory are this process's, client included"
	case e.pid != 0:
		return fmt.Sprintf("process %d; its CPU and memory from /proc/%d", e.pid, e.pid)
	}
	return "another process; give -pid to report its CPU and memory"
}

// close stops an in-process server and removes its temporary folder.
func (e *endpoint) close() {
	if e.stop != nil {
		e.stop()
		if err := <-e.served; err != nil {
			fmt.Fprintln(os.Stderr, "load: serve:", err)
		}
	}
	if e.srv != nil {
		if err := e.srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "load: close:", err)
		}
	}
	if e.tempDir != "" {
		_ = os.RemoveAll(e.tempDir)
	}
}

// memory is the server's memory after a level: the Go heap and what the
// runtime took from the OS when the server is in this process, and the
// resident set (now and at its peak) from /proc.
type memory struct {
	heapInuse, sys uint64 // 0 for another process
	rss, hwm       uint64
}

func (e *endpoint) memory() memory {
	var m memory
	pid := os.Getpid()
	switch {
	case e.srv != nil:
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m.heapInuse, m.sys = ms.HeapInuse, ms.Sys
	case e.pid != 0:
		pid = e.pid
	default:
		return m
	}
	m.rss, m.hwm = procmem.Of(pid)
	return m
}

// cpu is the CPU time, user and system, the server's process has used:
// this process's when the server is in it. It is 0 when unknown.
func (e *endpoint) cpu() time.Duration {
	switch {
	case e.srv != nil:
		return selfCPU()
	case e.pid != 0:
		return procCPU(fmt.Sprintf("/proc/%d/stat", e.pid))
	}
	return 0
}

// selfCPU is the CPU time, user and system, this process has used; 0 when
// unknown.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU reads utime and stime from /proc/PID/stat. They are in clock
// ticks of USER_HZ, which Linux fixes at 100 for user space.
func procCPU(path string) time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseUint(fields[11], 10, 64)
	stime, err2 := strconv.ParseUint(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
