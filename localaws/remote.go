package localaws

import (
	"log/slog"
	"net"
)

// warnRemote says, when l lets other hosts reach the endpoint
// (--allow-remote with an address that is not loopback), what that
// exposes. It names no key: the administrator's is in its file.
func warnRemote(log *slog.Logger, l Listen, addr net.Addr) {
	host, _, err := net.SplitHostPort(l.Address)
	if err != nil || isLoopback(host) {
		return
	}
	log.Warn("leash local is reachable from other hosts at " + addr.String() + " (--allow-remote): " +
		"it serves plain HTTP, so the secret keys and session tokens that CreateAccessKey and the AssumeRole calls " +
		"return, and every signed request, cross the network unencrypted for anyone on the path to read; " +
		"anyone who can reach the port can call it and try keys against it, and whoever holds the administrator's key " +
		"can do anything in the account. Use it only on a network you trust, and stop it when done.")
}
