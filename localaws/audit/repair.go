package audit

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// repairTail cuts f back to just after its last newline, dropping a last
// line that a process killed in the middle of a write left without its
// end, and returns how many bytes it dropped. A log whose only line is torn
// becomes empty. It reads the file backwards a block at a time, so a long
// torn line costs no more memory than a short one.
func repairTail(f *os.File) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	const block = 64 << 10
	buf := make([]byte, block)
	end := size
	for end > 0 {
		start := max(end-block, 0)
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("read the last line: %w", err)
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			end = start + int64(i) + 1
			break
		}
		end = start
	}
	if end == size {
		return 0, nil
	}
	if err := f.Truncate(end); err != nil {
		return 0, fmt.Errorf("cut the torn last line: %w", err)
	}
	return size - end, nil
}
