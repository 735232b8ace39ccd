package scaffold

import (
	"errors"
	"strings"
)

// Split breaks a command line into arguments as a POSIX shell would, without running
// anything: words split on blanks, '...' keeps everything literally, "..." keeps blanks
// and takes \" \\ \$ \` as escapes, and a backslash outside quotes escapes the next
// character. Variables, globs and operators are not expanded: what is written is passed.
func Split(line string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New(`unterminated " quote`)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("a backslash ends the line")
			}
			i++
			if line[i] != '\n' { // a backslash-newline joins lines, as in a pasted cURL command
				cur.WriteByte(line[i])
				inWord = true
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}
