package localaws

import (
	"fmt"
	"path/filepath"

	"leash.dev/leash/localaws/audit"
)

// recordRepair says, in the operational log and in the audit log itself,
// that Open cut a torn last line off the audit log (a process killed in
// the middle of a write), so that whoever reads the trail with leash audit
// knows a line was lost and when that was found.
func (s *Server) recordRepair(dropped int64) {
	if dropped == 0 {
		return
	}
	path := filepath.Join(s.cfg.DataDir, audit.FileName)
	s.cfg.Log.Warn("audit log: cut off a torn last line left by a crash", "path", path, "bytes", dropped)
	e := &audit.Event{
		EventVersion: "1.08",
		EventTime:    s.cfg.Now().UTC(),
		EventSource:  "leash.local",
		EventName:    "AuditLogRepaired",
		ErrorMessage: fmt.Sprintf("cut off a torn last line of %d bytes, left by a process stopped in the middle of a write", dropped),
		RequestID:    newRequestID(),
		EventID:      newRequestID(),
	}
	if err := s.audit.Append(e); err != nil {
		s.cfg.Log.Warn("audit log", "err", err)
	}
}
